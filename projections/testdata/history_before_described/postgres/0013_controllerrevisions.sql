-- The ControllerRevision view on PostgreSQL: the columns of SQLite's
-- controllerrevisions table (migration 0024), in PostgreSQL's types.
CREATE TABLE controllerrevisions (
    namespace        text     COLLATE "C" NOT NULL,
    name             text     COLLATE "C" NOT NULL,
    deleted          smallint NOT NULL DEFAULT 0,
    version          bigint   NOT NULL,
    resource_version bigint   NOT NULL,
    data             bytea    NOT NULL,
    PRIMARY KEY (namespace, name)
);

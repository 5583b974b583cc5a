-- The Job view on PostgreSQL: the columns of SQLite's jobs table
-- (migration 0017), in PostgreSQL's types, the flag a smallint as on the
-- other views.
CREATE TABLE jobs (
    namespace        text     COLLATE "C" NOT NULL,
    name             text     COLLATE "C" NOT NULL,
    deleted          smallint NOT NULL DEFAULT 0,
    version          bigint   NOT NULL,
    resource_version bigint   NOT NULL,
    data             bytea    NOT NULL,
    PRIMARY KEY (namespace, name)
);

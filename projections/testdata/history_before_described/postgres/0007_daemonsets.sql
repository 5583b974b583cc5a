-- The DaemonSet view on PostgreSQL: the columns of SQLite's daemonsets
-- table (migration 0018), in PostgreSQL's types, the flag a smallint as
-- on the other views.
CREATE TABLE daemonsets (
    namespace        text     COLLATE "C" NOT NULL,
    name             text     COLLATE "C" NOT NULL,
    deleted          smallint NOT NULL DEFAULT 0,
    version          bigint   NOT NULL,
    resource_version bigint   NOT NULL,
    data             bytea    NOT NULL,
    PRIMARY KEY (namespace, name)
);

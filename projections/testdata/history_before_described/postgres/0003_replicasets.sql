-- The ReplicaSet view on PostgreSQL: the columns of SQLite's replicasets
-- table (migration 0014), in PostgreSQL's types, the flag a smallint as
-- on the other views.
CREATE TABLE replicasets (
    namespace        text     COLLATE "C" NOT NULL,
    name             text     COLLATE "C" NOT NULL,
    deleted          smallint NOT NULL DEFAULT 0,
    version          bigint   NOT NULL,
    resource_version bigint   NOT NULL,
    data             bytea    NOT NULL,
    PRIMARY KEY (namespace, name)
);

-- The lease view on PostgreSQL: the columns of SQLite's leases table
-- (migrations 0011 and 0013), in PostgreSQL's types. Keys are COLLATE
-- "C" so that lists page in byte order, as on SQLite.
CREATE TABLE leases (
    namespace        text    COLLATE "C" NOT NULL,
    name             text    COLLATE "C" NOT NULL,
    deleted          boolean NOT NULL DEFAULT false,
    version          bigint  NOT NULL,
    resource_version bigint  NOT NULL,
    renewed_at       bigint  NOT NULL DEFAULT 0,
    data             bytea   NOT NULL,
    PRIMARY KEY (namespace, name)
);

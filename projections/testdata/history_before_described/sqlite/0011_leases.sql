-- The lease view: one row per lease ever created, keyed by namespace and
-- name. data is the JSON of domain.Lease, which doubles as the aggregate
-- snapshot; deleted leases stay as tombstones.
CREATE TABLE leases (
    namespace        TEXT NOT NULL,
    name             TEXT NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL,
    PRIMARY KEY (namespace, name)
) WITHOUT ROWID;

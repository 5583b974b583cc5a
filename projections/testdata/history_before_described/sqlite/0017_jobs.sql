-- The Job view: one row per Job ever created, keyed by namespace and
-- name. data is the JSON of domain.Job, which doubles as the aggregate
-- snapshot. Deleted Jobs stay as tombstones so that their stream version
-- survives a later creation under the same name.
CREATE TABLE jobs (
    namespace        TEXT NOT NULL,
    name             TEXT NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL,
    PRIMARY KEY (namespace, name)
) WITHOUT ROWID;

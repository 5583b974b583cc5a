-- The namespace view: one row per namespace ever created, keyed by name.
-- data is the JSON of domain.Namespace, which doubles as the aggregate
-- snapshot. A deleted namespace stays as a tombstone so that its stream
-- version survives a later creation under the same name.
CREATE TABLE namespaces (
    name             TEXT PRIMARY KEY,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL
) WITHOUT ROWID;

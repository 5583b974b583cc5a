-- The ControllerRevision view: one row per ControllerRevision ever created,
-- keyed by namespace and name. data is the JSON of domain.ControllerRevision,
-- which doubles as the aggregate snapshot. Deleted ControllerRevisions stay as
-- tombstones so that their stream version survives a later creation under the
-- same name.
CREATE TABLE controllerrevisions (
    namespace        TEXT NOT NULL,
    name             TEXT NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL,
    PRIMARY KEY (namespace, name)
) WITHOUT ROWID;

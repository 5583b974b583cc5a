-- The Deployment view: one row per Deployment ever created, keyed by
-- namespace and name. data is the JSON of domain.Deployment, which
-- doubles as the aggregate snapshot. Deleted Deployments stay as
-- tombstones so that their stream version survives a later creation
-- under the same name.
CREATE TABLE deployments (
    namespace        TEXT NOT NULL,
    name             TEXT NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL,
    PRIMARY KEY (namespace, name)
) WITHOUT ROWID;

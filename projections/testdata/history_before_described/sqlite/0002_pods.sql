-- The pod view: one row per pod ever created or observed. data is the JSON
-- of domain.Pod, the aggregate snapshot. Finalized pods stay as tombstones
-- (with their last state, which a watcher is shown as DELETED) so that the
-- stream version survives a later pod of the same name.
--
-- node_name, phase, terminating and source are columns so that the
-- scheduler, the drain and the fieldSelector on spec.nodeName and
-- status.phase find their pods without decoding every row.
CREATE TABLE pods (
    namespace        TEXT NOT NULL,
    name             TEXT NOT NULL,
    uid              TEXT NOT NULL,
    node_name        TEXT NOT NULL,
    phase            TEXT NOT NULL,
    terminating      INTEGER NOT NULL,
    finalized        INTEGER NOT NULL,
    source           TEXT NOT NULL,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL,
    PRIMARY KEY (namespace, name)
) WITHOUT ROWID;
CREATE INDEX pods_by_node ON pods (node_name) WHERE finalized = 0;
CREATE INDEX pods_by_phase ON pods (phase) WHERE finalized = 0;

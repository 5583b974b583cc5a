-- The node view: one row per node ever registered. data is the JSON of
-- domain.Node, which doubles as the aggregate snapshot, so loading a node
-- with a million heartbeats is one read. Deleted nodes stay as tombstones so
-- that their stream version survives a later registration.
CREATE TABLE nodes (
    name             TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL
) WITHOUT ROWID;

-- A node's lifecycle as an operator reads it: one row per lifecycle event,
-- keyed by the log position of the event that caused it.
CREATE TABLE node_timeline (
    position INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    node     TEXT NOT NULL,
    at       TEXT NOT NULL,
    kind     TEXT NOT NULL,
    reason   TEXT NOT NULL,
    message  TEXT NOT NULL,
    PRIMARY KEY (position, seq)
) WITHOUT ROWID;
CREATE INDEX node_timeline_by_node ON node_timeline (node, position);

-- How far each rebuild got: the log position it replayed up to.
CREATE TABLE projection_checkpoints (
    projection TEXT PRIMARY KEY,
    position   INTEGER NOT NULL,
    rebuilt_at TEXT NOT NULL
);

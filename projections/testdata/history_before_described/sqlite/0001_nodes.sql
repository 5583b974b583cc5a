-- The node view: one row per node ever registered. data is the JSON of
-- domain.Node, which doubles as the aggregate snapshot, so loading a node
-- with a million heartbeats is one read. Deleted nodes stay as tombstones so
-- that their stream version survives a later registration.
--
-- A few fields are also columns, so that the health check can find the
-- silent nodes among ten thousand with one scan of integers instead of
-- decoding every row: last_heartbeat and registered_at in Unix nanoseconds
-- (0 when never), agent_state, and ready (the Ready status, '' when none).
CREATE TABLE nodes (
    name             TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    agent_state      TEXT NOT NULL,
    ready            TEXT NOT NULL,
    registered_at    INTEGER NOT NULL,
    last_heartbeat   INTEGER NOT NULL,
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

-- The fleet's health as a whole: one row, the FleetHealth aggregate.
CREATE TABLE fleet_health (
    name             TEXT PRIMARY KEY,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL
) WITHOUT ROWID;

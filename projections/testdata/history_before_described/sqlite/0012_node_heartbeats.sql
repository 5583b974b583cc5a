-- A node's row in two: what changes only on transitions stays in nodes
-- (the "cold" part: labels, conditions' statuses, taints, capacity, the
-- agent's state), and what every plain heartbeat changes moves to a small
-- row of its own (the "hot" part: the node's version and resourceVersion,
-- its last heartbeat, its metrics, and each condition's lastHeartbeatTime).
-- A heartbeat or lease renewal that changes nothing else appends its one
-- event and rewrites only the hot row: no indexed column moves, and the
-- node's full JSON (1.4-2 KB) is not written again. Kubernetes made the
-- same move: Leases exist so that heartbeats stop rewriting the Node.
--
-- The health reconciler keeps every node's deadline in memory, so no
-- index follows the last heartbeat any more.
CREATE TABLE node_heartbeats (
    name           TEXT PRIMARY KEY,
    last_heartbeat INTEGER NOT NULL,
    data           BLOB NOT NULL
) WITHOUT ROWID;

DROP INDEX nodes_by_deadline;
ALTER TABLE nodes DROP COLUMN version;
ALTER TABLE nodes DROP COLUMN resource_version;
ALTER TABLE nodes DROP COLUMN last_heartbeat;

-- What readers of the node view read: the cold row's columns, the last
-- heartbeat, and the two parts' JSON joined by a NUL byte (which JSON
-- never holds), decoded as one node by unmarshalNode. A node written
-- before the split has no hot row until the upgrade at start
-- (splitNodeRows) gives it one.
CREATE VIEW node_rows AS
SELECT n.name, n.kind, n.deleted, n.agent_state, n.ready, n.registered_at,
       COALESCE(h.last_heartbeat, 0) AS last_heartbeat,
       n.data || x'00' || COALESCE(h.data, x'') AS data
FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name;

-- The health check's index: the nodes that can still miss a deadline
-- (registered, not stopped, Ready not already Unknown), by last heartbeat and
-- registration time. The check every monitor period then reads only the
-- nodes whose deadline has passed instead of scanning the whole fleet, and
-- in a mass outage, once the silent nodes are marked, the index holds only
-- the nodes still reporting.
CREATE INDEX nodes_by_deadline ON nodes (last_heartbeat, registered_at)
    WHERE deleted = 0 AND agent_state <> 'Stopped' AND ready <> 'Unknown';

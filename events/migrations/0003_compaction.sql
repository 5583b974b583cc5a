-- How far the retention policy has thinned the log: one row, written in the
-- same transaction as every deletion it describes.
--
-- through is the compaction point: the newest log position whose state a
-- deletion relied on (the later heartbeat that superseded a deleted one).
-- The state of the log at any position >= through is exactly what it was;
-- a watch or list at an older resourceVersion gets 410 Expired.
-- before is the recorded time (unix nanoseconds) before which superseded
-- plain heartbeats may have been deleted; deleted counts every event ever
-- deleted, so the number of events is the head minus deleted (positions
-- are never reused, and a rolled-back insert gives its position back).
CREATE TABLE log_compaction (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    through    INTEGER NOT NULL DEFAULT 0,
    before     INTEGER NOT NULL DEFAULT 0,
    deleted    INTEGER NOT NULL DEFAULT 0,
    thinned_at INTEGER NOT NULL DEFAULT 0
);
INSERT INTO log_compaction (id) VALUES (1);

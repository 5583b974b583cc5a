-- How far the retention policy has thinned the log, as on SQLite: one
-- row, written in the same transaction as every deletion it describes,
-- and shared by every replica of the database.
--
-- through is the compaction point: the newest log position whose state a
-- deletion relied on (the later heartbeat that superseded a deleted one).
-- The state of the log at any position >= through is exactly what it was;
-- a watch or list at an older resourceVersion gets 410 Expired.
-- before is the recorded time (unix nanoseconds) before which superseded
-- plain heartbeats may have been deleted; deleted counts every event ever
-- deleted, so the number of events is the head minus deleted; thinned_at
-- is when the last deletion ran (unix nanoseconds, herd's clock).
--
-- Each replica keeps the row in memory: the deleting transaction
-- announces the row on the channel herd_compaction as it commits, and
-- every replica reads it again now and then
-- (events/postgres_compaction.go).
CREATE TABLE log_compaction (
    id         integer PRIMARY KEY CHECK (id = 1),
    through    bigint  NOT NULL DEFAULT 0,
    before     bigint  NOT NULL DEFAULT 0,
    deleted    bigint  NOT NULL DEFAULT 0,
    thinned_at bigint  NOT NULL DEFAULT 0
);
INSERT INTO log_compaction (id) VALUES (1);

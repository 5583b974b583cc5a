-- The actor and the causation id are columns of their own, written by
-- herd's appends beside the metadata JSON that still carries them, and
-- indexed as they are. The indexes of migration 0006 were built on
-- json_extract over the metadata: every insert parsed each row's JSON
-- once for each of them, a third of an event's insert (BENCHMARKS.md,
-- "What one registration costs the log"). An event with no actor or no
-- cause has '' there, never NULL, as on PostgreSQL.
ALTER TABLE events ADD COLUMN actor TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN causation_id TEXT NOT NULL DEFAULT '';

-- The events already stored get theirs from their metadata, the one
-- time events are updated: the trigger that refuses it is set aside
-- while this transaction fills the new columns, and set again as it was.
DROP TRIGGER events_no_update;
UPDATE events
SET actor = COALESCE(json_extract(metadata, '$.actor'), ''),
    causation_id = COALESCE(json_extract(metadata, '$.causationId'), '')
WHERE json_valid(metadata);
CREATE TRIGGER events_no_update
BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events: events are never updated');
END;

DROP INDEX events_actor;
DROP INDEX events_causation;

-- As before, each index carries the position (the rowid) in order, so a
-- page is read in position order from where it starts and stops at its
-- limit.
CREATE INDEX events_actor ON events (actor);

-- Most events (a node's own heartbeats and reports) have no cause; only
-- those that do are indexed. Filter's queries repeat the condition, or
-- SQLite would not take the index.
CREATE INDEX events_causation ON events (causation_id) WHERE causation_id <> '';

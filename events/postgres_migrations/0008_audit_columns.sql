-- The actor and the causation id are columns of their own, as on SQLite
-- (events/migrations/0008_audit_columns.sql), written by herd's appends
-- beside the metadata JSON that still carries them: the indexes of
-- migration 0006 parsed every row's metadata into jsonb once for each
-- of them as it was inserted. An event with no actor or no cause has ''
-- there. The columns have no default: a replica of an earlier herd,
-- which does not write them, fails its appends (null value in column
-- "actor") rather than storing events the audit queries would not find.
--
-- COLLATE "C": compared byte by byte, as on SQLite.
ALTER TABLE events
    ADD COLUMN actor        text COLLATE "C" NOT NULL DEFAULT '',
    ADD COLUMN causation_id text COLLATE "C" NOT NULL DEFAULT '';

-- The events already stored get theirs from their metadata, the one
-- time events are updated.
ALTER TABLE events DISABLE TRIGGER events_no_update;
UPDATE events
SET actor = COALESCE(herd_event_actor(metadata), ''),
    causation_id = COALESCE(herd_event_causation(metadata), '')
WHERE metadata IS NOT NULL AND metadata <> ''::bytea;
ALTER TABLE events ENABLE TRIGGER events_no_update;

ALTER TABLE events
    ALTER COLUMN actor DROP DEFAULT,
    ALTER COLUMN causation_id DROP DEFAULT;

DROP INDEX events_actor;
DROP INDEX events_causation;
DROP FUNCTION herd_event_actor(bytea);
DROP FUNCTION herd_event_causation(bytea);

-- Each index ends with the position, so that a page is read in position
-- order and stops at its limit.
CREATE INDEX events_actor ON events (actor, position);

-- Most events have no cause; only those that do are indexed. The event's
-- id rides along, so that following causes (what an event led to, one
-- generation at a time) reads the index alone where the table's pages
-- are all visible. Filter's queries repeat the condition, or the
-- planner would not take the index.
CREATE INDEX events_causation ON events (causation_id, position) INCLUDE (event_id) WHERE causation_id <> '';

-- The audit API selects by actor, by event type, and follows causes, as
-- on SQLite (events/migrations/0006_audit_indexes.sql). metadata is the
-- JSON's bytes; these functions read a field out of it, and are what
-- Filter's queries say (events/postgres_read.go), so that the planner
-- matches the indexes. They are IMMUTABLE: the same bytes always hold the
-- same field (the database's encoding is UTF8, and metadata is never
-- updated in place).
CREATE FUNCTION herd_event_actor(metadata bytea) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN convert_from(NULLIF(metadata, ''::bytea), 'UTF8')::jsonb->>'actor';

CREATE FUNCTION herd_event_causation(metadata bytea) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN convert_from(NULLIF(metadata, ''::bytea), 'UTF8')::jsonb->>'causationId';

-- Each index ends with the position, so that a page is read in position
-- order and stops at its limit.
CREATE INDEX events_actor ON events (herd_event_actor(metadata), position);

CREATE INDEX events_type ON events (type, position);

-- Most events have no cause; only those that do are indexed.
CREATE INDEX events_causation ON events (herd_event_causation(metadata), position)
    WHERE herd_event_causation(metadata) IS NOT NULL;

-- The causation index carries each event's id beside its position, so
-- that the walk over what an event led to (Filter.CausedBy) finds each
-- generation's ids in the index alone, without a search of the table
-- for each event it passes. Its entries stay in position order within
-- one cause: a page of what one event caused is read from the index in
-- position order and stops at its limit.
DROP INDEX events_causation;
CREATE INDEX events_causation ON events (causation_id, position, event_id) WHERE causation_id <> '';

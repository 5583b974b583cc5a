-- The audit API selects by actor ("what did alice do?"), by event type,
-- and follows causes (the events one event caused). Without an index a
-- query for one actor read the log until it found a page of theirs: on a
-- log of three million events, seconds of a database connection and a
-- core for every request. Each index carries the position (the rowid) in
-- order, so a page is read in position order from where it starts and
-- stops at its limit. The expressions are the ones Filter's queries use
-- (events/query.go), or SQLite would not match them.
CREATE INDEX events_actor ON events (json_extract(metadata, '$.actor'));

CREATE INDEX events_type ON events (type);

-- Most events (a node's own heartbeats and reports) have no cause; only
-- those that do are indexed.
CREATE INDEX events_causation ON events (json_extract(metadata, '$.causationId'))
    WHERE json_extract(metadata, '$.causationId') IS NOT NULL;

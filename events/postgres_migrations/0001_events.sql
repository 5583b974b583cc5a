-- The event log on PostgreSQL: the same columns as on SQLite, in
-- PostgreSQL's types.
--
-- position is handed out from log_head's one row, which an appending
-- transaction updates and so holds locked until it commits: positions
-- commit in the order they are given, with no gaps but deletions, and a
-- reader that has seen position p has seen every event before it. (A
-- sequence with each writer's xid8 read against pg_snapshot_xmin, as
-- watermill-sql's PostgreSQL adapter does, was tried first: the snapshot's
-- xmin is the whole cluster's, so a transaction in flight in any database
-- of the server held back every reader, and a writer did not read its own
-- committed events.)
--
-- stream is COLLATE "C": streams are compared and paged in byte order, as
-- on SQLite, whatever the database's locale.
--
-- payload and metadata are bytea: the bytes the appender gave, returned
-- as they were, which replay --verify compares.
CREATE TABLE events (
    position       bigint  PRIMARY KEY,
    event_id       uuid    NOT NULL UNIQUE,
    stream         text    COLLATE "C" NOT NULL,
    version        bigint  NOT NULL CHECK (version >= 1),
    type           text    NOT NULL,
    schema_version integer NOT NULL,
    recorded_at    bigint  NOT NULL,
    payload        bytea   NOT NULL,
    metadata       bytea,
    -- Optimistic concurrency: two writers that both read version n cannot
    -- both store n+1.
    UNIQUE (stream, version)
);

-- The newest position handed out: the log's head.
CREATE TABLE log_head (
    id       integer PRIMARY KEY CHECK (id = 1),
    position bigint  NOT NULL
);
INSERT INTO log_head (id, position) VALUES (1, 0);

-- Audit and time-travel queries select by time.
CREATE INDEX events_recorded_at ON events (recorded_at);

-- Events are never updated in place.
CREATE FUNCTION events_no_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events: events are never updated';
END $$;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION events_no_update();

-- The event log. This table is also watermill-sql's topic table for the
-- topic "events": position is the watermill offset.
--
-- position uses AUTOINCREMENT so a position is never handed out twice, even
-- after the newest rows are gone; watermill consumer groups store positions
-- and must never see one reused.
--
-- recorded_at is INTEGER unix nanoseconds UTC, not RFC3339Nano text:
-- RFC3339Nano drops trailing zeros, so "…:05Z" sorts after "…:05.5Z" as text
-- and range queries over text would be wrong; integers compare correctly,
-- cost nothing to parse and take 8 bytes.
--
-- payload and metadata are JSON stored as TEXT so SQLite's json_* functions
-- can read them (a BLOB would be taken for JSONB).
CREATE TABLE events (
    position       INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id       TEXT    NOT NULL UNIQUE,
    stream         TEXT    NOT NULL,
    version        INTEGER NOT NULL CHECK (version >= 1),
    type           TEXT    NOT NULL,
    schema_version INTEGER NOT NULL,
    recorded_at    INTEGER NOT NULL,
    payload        TEXT    NOT NULL,
    metadata       TEXT,
    -- Optimistic concurrency: two writers that both read version n cannot
    -- both store n+1.
    UNIQUE (stream, version)
);

-- A stream never gets a gap: the next version is one past the highest one
-- stored. MAX, not "version-1 exists", because the retention policy may
-- delete old heartbeat rows and the stream must stay appendable after that.
-- The (stream, version) index makes the MAX a single index probe. Rows of a
-- multi-row INSERT are inserted, and checked, one after another. ABORT undoes
-- only the failing statement, so the caller's transaction stays usable.
CREATE TRIGGER events_no_gap
BEFORE INSERT ON events
WHEN NEW.version <> COALESCE((SELECT MAX(version) FROM events WHERE stream = NEW.stream), 0) + 1
BEGIN
    SELECT RAISE(ABORT, 'events: stream version must be one past its current version');
END;

-- Audit and time-travel queries select by time ("what happened between 03:00
-- and 03:15?").
CREATE INDEX events_recorded_at ON events (recorded_at);

-- Events are never updated in place.
CREATE TRIGGER events_no_update
BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events: events are never updated');
END;

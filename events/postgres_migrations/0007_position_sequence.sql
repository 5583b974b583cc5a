-- Positions come from a sequence instead of log_head's one row, which
-- every appending transaction held locked to its commit: the appenders
-- of every replica queued on it, view writes and fsync included. The
-- rule that keeps readers from passing a position that commits later is
-- in ARCHITECTURE.md ("Where the serial section is") and in
-- herd_log_head below.
--
-- The sequence carries on from the head as it was: nothing is appended
-- while this runs, since log_head is locked first (a replica of the
-- earlier herd waits, then fails on the view that replaces the table).
LOCK TABLE log_head IN ACCESS EXCLUSIVE MODE;

CREATE SEQUENCE events_position AS bigint MINVALUE 1 CACHE 1 NO CYCLE;
SELECT setval('events_position', GREATEST(1, h), h > 0)
FROM (SELECT GREATEST((SELECT position FROM log_head WHERE id = 1),
                      (SELECT COALESCE(MAX(position), 0) FROM events)) AS h) s;

-- The newest head a reader has found final (events/postgres_read.go
-- keeps it), where log_head below starts from: a value committed before
-- a statement's snapshot was final before it, so every event at or
-- before it that ever commits is in that snapshot.
CREATE TABLE log_horizon (
    id       integer PRIMARY KEY CHECK (id = 1),
    position bigint  NOT NULL
);
INSERT INTO log_horizon (id, position)
SELECT 1, CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM events_position;

-- The top-level xid of the appending transaction, for log_head below:
-- a row's xmin is a subtransaction's when it was appended in a
-- savepoint, as herd's are. Rows appended before are NULL.
ALTER TABLE events ADD COLUMN txid xid8;

DROP TABLE log_head;

-- herd_log_sample and herd_log_running carry the readers' rule
-- (events/postgres_read.go waits between them, without holding a
-- connection). Before it takes positions, an appender gives its
-- transaction its xid and takes the appenders' advisory lock, shared
-- (1751478884 = 'herd', 1; events/postgres_append.go), so:
--   1. L, the sequence's last value, read first, covers every position
--      handed out so far, each to a transaction that already held that
--      lock and had its xid;
--   2. pg_locks and pg_stat_activity, read after, show every such
--      transaction still running, and its xid (backend_xid is the proc
--      array's): herd_log_sample returns L and them, as 'pid:xid,...';
--   3. once none of those backends shows that xid any more
--      (herd_log_running returns none), each has left the proc array:
--      every position <= L is decided, and every snapshot taken from
--      then on sees those that committed.
-- A snapshot's xip is not enough for 2: it lists only xids below its
-- xmax, the newest completed xid + 1, and a transaction that took its
-- xid after that one is running but not listed. pg_xact_status is not
-- enough for 3: the commit log says "committed" a moment before the
-- transaction leaves the proc array and new snapshots see it. The lock
-- keeps out of the wait every transaction that appends nothing (a
-- rebuild of the views, a psql session, another database's work). Both
-- are VOLATILE, so each statement in them reads afresh (2 after 1);
-- pg_stat_clear_snapshot drops the copy of pg_stat_activity a
-- transaction otherwise keeps.
CREATE FUNCTION herd_log_sample(OUT head bigint, OUT running text) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END INTO head FROM events_position;
    PERFORM pg_stat_clear_snapshot();
    SELECT string_agg(a.pid || ':' || a.backend_xid, ',') INTO running
    FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
    WHERE k.locktype = 'advisory' AND k.classid = 1751478884 AND k.objid = 1 AND k.objsubid = 2 AND k.granted
      AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid();
END $$;

CREATE FUNCTION herd_log_running(running text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    still text;
BEGIN
    PERFORM pg_stat_clear_snapshot();
    SELECT string_agg(w.r, ',') INTO still
    FROM unnest(string_to_array(running, ',')) AS w(r)
    JOIN pg_stat_activity a ON a.pid = split_part(w.r, ':', 1)::integer AND a.backend_xid::text = split_part(w.r, ':', 2);
    RETURN still;
END $$;

-- log_head is the head as of the reading statement's snapshot, for
-- statements that read views and the head together (a list and its
-- resourceVersion): every event at or before it that ever commits is
-- in that snapshot. It starts from log_horizon as the statement sees it
-- (final before the snapshot), waits as a reader does for a final L,
-- then (its own statements reading afresh) stops short of the first
-- position in between whose transaction the snapshot does not see.
CREATE FUNCTION herd_log_head_at(snap pg_snapshot, since bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    head    bigint;
    running text;
    unseen  bigint;
    pause   float8 := 0.0002;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        -- Every statement here reads the transaction's snapshot, which
        -- cannot show what it misses: the horizon is as far as it can
        -- be sure of.
        RETURN since;
    END IF;
    SELECT s.head, s.running INTO head, running FROM herd_log_sample() s;
    WHILE running IS NOT NULL AND running <> '' LOOP
        PERFORM pg_sleep(pause);
        pause := LEAST(pause * 2, 0.005);
        running := herd_log_running(running);
    END LOOP;
    SELECT MIN(position) INTO unseen FROM events
    WHERE position > since AND position <= head AND txid IS NOT NULL AND NOT pg_visible_in_snapshot(txid, snap);
    head := COALESCE(unseen - 1, head);
    SELECT COALESCE(MAX(position), 0) INTO head FROM events WHERE position <= head;
    RETURN GREATEST(head, since);
END $$;

CREATE VIEW log_head AS
SELECT h.id, herd_log_head_at(pg_current_snapshot(), h.position) AS position FROM log_horizon h;

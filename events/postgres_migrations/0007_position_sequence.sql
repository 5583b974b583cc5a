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

-- The newest head a reader has found final (herd_log_head_publish), for
-- statements that read views and the head together (log_head below): a
-- value committed before a statement's snapshot was final before it, so
-- every event at or before it that ever commits is in that snapshot.
CREATE TABLE log_horizon (
    id       integer PRIMARY KEY CHECK (id = 1),
    position bigint  NOT NULL
);
INSERT INTO log_horizon (id, position)
SELECT 1, CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM events_position;

DROP TABLE log_head;
CREATE VIEW log_head AS SELECT id, position FROM log_horizon;

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

-- log_head gives the newest event at or before the head it finds, as the
-- readers' Head does (events/postgres_read.go), never a position without
-- one. Before, it gave at least log_horizon's position, and a reader
-- keeps there the sequence's value it found final, which may be the
-- position of an append that rolled back or lost a race and so holds no
-- event: a list read from the views then named a resourceVersion no
-- follower of the log reaches, and a replica starting beside another,
-- whose watch cache reads the log up to the views' head, stopped with
-- "the log ends at N, before its views' position N+1".
--
-- Every position at or before the head found here is in the reading
-- statement's snapshot or will never commit (migration 0007), so the
-- newest event among them is final for that statement too.
CREATE OR REPLACE FUNCTION herd_log_head_at(snap pg_snapshot, since bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    head    bigint;
    running text;
    unseen  bigint;
    pause   float8 := 0.0002;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        -- Every statement here reads the transaction's snapshot, which
        -- cannot show what it misses: the newest event at or before the
        -- horizon is as far as it can be sure of.
        SELECT COALESCE(MAX(position), 0) INTO head FROM events WHERE position <= since;
        RETURN head;
    END IF;
    SELECT s.head, s.running INTO head, running FROM herd_log_sample() s;
    WHILE running IS NOT NULL AND running <> '' LOOP
        PERFORM pg_sleep(pause);
        pause := LEAST(pause * 2, 0.005);
        running := herd_log_running(running);
    END LOOP;
    SELECT MIN(position) INTO unseen FROM events
    WHERE position > since AND position <= head AND txid IS NOT NULL AND NOT pg_visible_in_snapshot(txid, snap);
    head := COALESCE(unseen - 1, GREATEST(head, since));
    SELECT COALESCE(MAX(position), 0) INTO head FROM events WHERE position <= head;
    RETURN head;
END $$;

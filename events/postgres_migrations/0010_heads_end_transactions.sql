-- A head stands where a transaction ends. Appends take their positions
-- one row at a time, and the appends of several transactions interleave
-- (two replicas, say): a head sampled while an insert was still taking
-- positions fell inside that transaction, and a reader stopping there
-- saw half of one write (a heartbeat without the conditions it flipped),
-- and the rest in its next read. herd_log_whole gives the newest
-- position at or before head that no transaction's events stand on both
-- sides of; readers apply it to the final head they found
-- (events/postgres_read.go), as log_head does below.
--
-- since is a head found final before head was sampled: a transaction
-- still running when head was sampled took no position at or before it,
-- so only events after since are looked at. Rows appended before 0007
-- have no txid; they are all older than any since.
CREATE FUNCTION herd_log_whole(since bigint, head bigint) RETURNS bigint LANGUAGE sql STABLE AS $$
    WITH t AS (
        SELECT MIN(position) AS f, MAX(position) AS l FROM events
        WHERE position > since AND txid IS NOT NULL GROUP BY txid
    ), r AS (
        -- reach: the furthest any transaction that began before f goes
        SELECT f, MAX(l) OVER (ORDER BY f ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach FROM t
    )
    SELECT COALESCE(MAX(c), since) FROM (
        SELECT head AS c WHERE NOT EXISTS (SELECT 1 FROM t WHERE f <= head AND l > head)
        UNION ALL
        SELECT f - 1 FROM r WHERE f <= head AND COALESCE(reach, since) < f
    ) cuts
$$;

CREATE OR REPLACE FUNCTION herd_log_head_at(snap pg_snapshot, since bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    head    bigint;
    running text;
    waited  boolean;
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
    waited := running IS NOT NULL AND running <> '';
    WHILE running IS NOT NULL AND running <> '' LOOP
        PERFORM pg_sleep(pause);
        pause := LEAST(pause * 2, 0.005);
        running := herd_log_running(running);
    END LOOP;
    SELECT MIN(position) INTO unseen FROM events
    WHERE position > since AND position <= head AND txid IS NOT NULL AND NOT pg_visible_in_snapshot(txid, snap);
    head := COALESCE(unseen - 1, GREATEST(head, since));
    -- Every transaction the snapshot does not see took its positions
    -- here at or after unseen, but one it sees, found running by the
    -- sample or interleaved with an unseen one, may stand on both sides
    -- of what is left.
    IF (waited OR unseen IS NOT NULL) AND head > since THEN
        head := herd_log_whole(since, head);
    END IF;
    SELECT COALESCE(MAX(position), 0) INTO head FROM events WHERE position <= head;
    RETURN head;
END $$;

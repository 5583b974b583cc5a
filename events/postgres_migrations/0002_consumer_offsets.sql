-- Where each consumer group stands in the log, as on SQLite: a follower
-- (the reconcilers' dispatcher) resumes after offset_acked, the position
-- of the last event its group handled, in whichever herd process it runs
-- next. updated_at is for operators ("which group is stuck?"); herd never
-- reads it.
--
-- consumer_group is COLLATE "C": names compare byte by byte, as on
-- SQLite, whatever the database's locale, so that a new group inherits
-- from exactly the groups whose names begin with its prefix.
CREATE TABLE consumer_offsets (
    consumer_group text        COLLATE "C" PRIMARY KEY,
    offset_acked   bigint      NOT NULL DEFAULT 0 CHECK (offset_acked >= 0),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

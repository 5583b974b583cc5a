-- Snapshots, as on SQLite (events/migrations/0005_snapshots.sql): an
-- object's state folded from its stream up to a log position, derived
-- data that only makes folding the past faster. Every replica takes the
-- same ones from the same log; the first to insert one wins and the
-- others' inserts do nothing.
CREATE TABLE snapshots (
    stream   text   COLLATE "C" NOT NULL,
    position bigint NOT NULL,
    version  bigint NOT NULL,
    taken_at bigint NOT NULL,
    state    bytea  NOT NULL,
    PRIMARY KEY (stream, position)
);

-- Snapshots: an object's state folded from its stream up to a log
-- position, so that its state at a later position folds from the newest
-- snapshot before it rather than from its first event (lists of the past,
-- watches resumed after a restart). They are derived data: every one is
-- what folding the log up to its position gives, dropping them changes no
-- answer, only its speed, and a deletion of events removes, in its own
-- transaction, the snapshots it makes untrue.
--
-- stream and version name the stream and the number of its events the
-- state reflects; position is the log position of the last of them;
-- taken_at is when it was taken (unix nanoseconds, herd's clock); state is
-- the state as the watch hub's kind encodes it.
CREATE TABLE snapshots (
    stream   TEXT    NOT NULL,
    position INTEGER NOT NULL,
    version  INTEGER NOT NULL,
    taken_at INTEGER NOT NULL,
    state    BLOB    NOT NULL,
    PRIMARY KEY (stream, position)
) WITHOUT ROWID;

-- Where each watermill consumer group (one per reconciler) has got to in the
-- log. offset_acked is the position of the last event the group acked; it
-- resumes after it. updated_at is bookkeeping for operators ("which group is
-- stuck?"), written by SQLite's clock, never read by herd.
CREATE TABLE consumer_offsets (
    consumer_group TEXT    PRIMARY KEY,
    offset_acked   INTEGER NOT NULL DEFAULT 0,
    updated_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) WITHOUT ROWID;

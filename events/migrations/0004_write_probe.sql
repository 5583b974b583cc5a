-- What /readyz writes to learn whether the log can grow again after a
-- write failed (a full disk): a row with 64 KiB of zeros, inserted and
-- deleted in one committed transaction, so that the pages it takes must
-- be found, and the table is left empty.
CREATE TABLE write_probe (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    room BLOB    NOT NULL
);

-- Who leads each job that runs on one replica at a time (the reconcilers;
-- events/leader_postgres.go). A replica leads a job while its session
-- holds the job's advisory lock; it writes this row when it takes the
-- lock and deletes it when it lets go. A leader that died leaves its row
-- behind, so a row counts only while backend_pid holds the lock
-- (pg_locks): the row says who and since when, the lock whether.
--
-- job is COLLATE "C": names compare byte by byte, whatever the
-- database's locale.
CREATE TABLE leaders (
    job         text        COLLATE "C" PRIMARY KEY,
    replica     text        NOT NULL,
    backend_pid integer     NOT NULL,
    since       timestamptz NOT NULL DEFAULT now()
);

package events

import (
	"context"
	"database/sql"
)

// The savepoint statements: each command of a group commit runs inside
// one. The name can be fixed because they nest by position, not by name.
const (
	savepointSQL  = `SAVEPOINT command`
	releaseSQL    = `RELEASE command`
	rollbackToSQL = `ROLLBACK TO command`
)

// txSavepoints gives a database/sql transaction, on either engine, the
// port's savepoints, and keeps what each undoes of its appends.
type txSavepoints struct {
	tx *sql.Tx
	savepoints
}

// Savepoint implements LogTx.
func (t *txSavepoints) Savepoint(ctx context.Context) error {
	if _, err := t.tx.ExecContext(ctx, savepointSQL); err != nil {
		return err
	}
	t.mark()
	return nil
}

// RollbackToSavepoint implements LogTx.
func (t *txSavepoints) RollbackToSavepoint(ctx context.Context) error {
	if _, err := t.tx.ExecContext(ctx, rollbackToSQL); err != nil {
		return err
	}
	t.undo()
	return nil
}

// ReleaseSavepoint implements LogTx.
func (t *txSavepoints) ReleaseSavepoint(ctx context.Context) error {
	if _, err := t.tx.ExecContext(ctx, releaseSQL); err != nil {
		return err
	}
	t.forget()
	return nil
}

// savepoints keeps, for a transaction, the newest position it appended
// and will commit: a rollback to a savepoint gives back the positions
// appended since, and a commit announces only what it kept, so that no
// follower is told of a head that never came (it would then sleep
// through the commit that does). When keep is set it also keeps the
// records themselves, which a commit hands on to the process's readers
// of the log (recentReads.committed).
type savepoints struct {
	last  int64
	keep  bool
	recs  []Record
	marks []savepointMark // at each open savepoint, innermost last
	// deleted says the transaction deleted events (the retention
	// policy): once it commits, the window of recent records, which may
	// hold them, is emptied (recentReads.forget). Kept through a
	// rollback to a savepoint: emptying the window is always safe.
	deleted bool
}

// savepointMark is what a transaction had appended when a savepoint
// was taken.
type savepointMark struct {
	last int64
	recs int
}

// appended notes that the transaction appended recs, ending at pos.
func (s *savepoints) appended(pos int64, recs ...Record) {
	s.last = max(s.last, pos)
	if s.keep {
		s.recs = append(s.recs, recs...)
	}
}

func (s *savepoints) mark() {
	s.marks = append(s.marks, savepointMark{last: s.last, recs: len(s.recs)})
}

func (s *savepoints) undo() {
	if n := len(s.marks); n > 0 {
		s.last = s.marks[n-1].last
		// Cleared, not only cut: the records rolled back must not be
		// kept alive by the array behind.
		clear(s.recs[s.marks[n-1].recs:])
		s.recs = s.recs[:s.marks[n-1].recs]
	}
}

func (s *savepoints) forget() {
	if n := len(s.marks); n > 0 {
		s.marks = s.marks[:n-1]
	}
}

package events

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Log is the store as the storage port sees it.
func (s *Store) Log() Log { return sqliteLog{s} }

// sqliteLog reads through the store's pool; sqliteTx inside one
// transaction.
type sqliteLog struct{ s *Store }

var _ Log = sqliteLog{}

// Begin starts a write transaction, in its turn among the process's
// writers, on the connection kept for writes (see writeConn).
func (l sqliteLog) Begin(ctx context.Context) (LogTx, error) {
	tx, release, err := l.s.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	t := &sqliteTx{s: l.s, txSavepoints: txSavepoints{tx: tx}, release: release}
	// With a window of recent reads, the transaction keeps what it
	// appends, for Commit to hand on to it.
	t.keep = l.s.shared.Load() != nil
	return t, nil
}

func (l sqliteLog) CommitSignal() (int64, <-chan struct{}) { return l.s.CommitSignal() }
func (l sqliteLog) Close() error                           { return l.s.Close() }
func (l sqliteLog) Compaction() Compaction                 { return l.s.Compaction() }
func (l sqliteLog) Unwritable(ctx context.Context) error   { return l.s.Unwritable(ctx) }
func (l sqliteLog) ObserveWrite(err error)                 { l.s.ObserveWrite(err) }

func (l sqliteLog) Head(ctx context.Context) (int64, error) { return l.s.Head(ctx, l.s.db) }

func (l sqliteLog) ReadStream(ctx context.Context, stream string, afterVersion int64) ([]Record, error) {
	return l.s.ReadStream(ctx, l.s.db, stream, afterVersion)
}

func (l sqliteLog) ReadAfter(ctx context.Context, position int64, limit int) ([]Record, error) {
	if c := l.s.shared.Load(); c != nil {
		return c.readAfter(ctx, position, limit, l.readAfter, l.s.commits.announced)
	}
	return l.readAfter(ctx, position, limit)
}

func (l sqliteLog) readAfter(ctx context.Context, position int64, limit int) ([]Record, error) {
	return l.s.ReadAfter(ctx, l.s.db, position, limit)
}

func (l sqliteLog) shareReads()          { l.s.shared.CompareAndSwap(nil, newRecentReads()) }
func (l sqliteLog) recent() *recentReads { return l.s.shared.Load() }

func (l sqliteLog) ReadStreamRange(ctx context.Context, stream string, after, upTo int64) ([]Record, error) {
	return l.s.ReadStreamRange(ctx, l.s.db, stream, after, upTo)
}

func (l sqliteLog) Query(ctx context.Context, f Filter) ([]Record, error) {
	return l.s.Query(ctx, l.s.db, f)
}

var _ Compactable = sqliteLog{}

func (l sqliteLog) FirstRecordedAt(ctx context.Context, t time.Time) (int64, error) {
	return l.s.FirstRecordedAt(ctx, l.s.db, t)
}

func (l sqliteLog) ReadTypeRange(ctx context.Context, typ string, after, before int64, limit int) ([]Record, error) {
	return l.s.ReadTypeRange(ctx, l.s.db, typ, after, before, limit)
}

func (l sqliteLog) RaiseCompactionPoint(through int64) { l.s.RaiseCompactionPoint(through) }
func (l sqliteLog) Compacted(c Compaction)             { l.s.Compacted(c) }

func (l sqliteLog) DeleteEvents(ctx context.Context, tx LogTx, d Deletion) (Compaction, error) {
	t, ok := tx.(*sqliteTx)
	if !ok || t.s != l.s {
		return Compaction{}, errors.New("delete events: the transaction is not this log's")
	}
	t.deleted = t.deleted || len(d.Positions) > 0
	return l.s.DeleteEvents(ctx, t.tx, d)
}

type sqliteTx struct {
	s *Store
	txSavepoints
	// release hands the connection kept for writes back once the
	// transaction is over; nil for a transaction on a pool connection.
	release func()
}

// done releases the kept connection, if the transaction ran on it.
func (t *sqliteTx) done() {
	if t.release != nil {
		t.release()
	}
}

func (t *sqliteTx) Engine() Engine { return EngineSQLite }

func (t *sqliteTx) Head(ctx context.Context) (int64, error) { return t.s.Head(ctx, t.tx) }

func (t *sqliteTx) ReadStream(ctx context.Context, stream string, afterVersion int64) ([]Record, error) {
	return t.s.ReadStream(ctx, t.tx, stream, afterVersion)
}

func (t *sqliteTx) ReadAfter(ctx context.Context, position int64, limit int) ([]Record, error) {
	return t.s.ReadAfter(ctx, t.tx, position, limit)
}

func (t *sqliteTx) ReadStreamRange(ctx context.Context, stream string, after, upTo int64) ([]Record, error) {
	return t.s.ReadStreamRange(ctx, t.tx, stream, after, upTo)
}

func (t *sqliteTx) Query(ctx context.Context, f Filter) ([]Record, error) {
	return t.s.Query(ctx, t.tx, f)
}

func (t *sqliteTx) Append(ctx context.Context, stream string, expectedVersion int64, md Metadata, at time.Time, evs ...NewEvent) ([]Record, error) {
	recs, err := t.s.Append(ctx, t.tx, stream, expectedVersion, md, at, evs...)
	if err == nil && len(recs) > 0 {
		t.appended(recs[len(recs)-1].Position, recs...)
	}
	return recs, err
}

func (t *sqliteTx) Commit() error {
	err := t.tx.Commit()
	t.done() // over, committed or not: database/sql ends it either way
	if err != nil {
		return err
	}
	if c := t.s.shared.Load(); c != nil && t.deleted {
		c.forget()
	}
	if t.last > 0 {
		// The records go to the window before the commit is announced,
		// so that the readers it wakes take them from memory instead of
		// reading them back (ARCHITECTURE.md, "The log and its views").
		if c := t.s.shared.Load(); c != nil && t.keep {
			c.committed(t.recs)
		}
		t.recs = nil
		t.s.Committed(t.last)
	}
	return nil
}

// Rollback ends the transaction and hands the kept connection on
// whatever ROLLBACK answers: database/sql ends the transaction either way,
// and SQLite may already have rolled it back itself (after SQLITE_FULL,
// a full disk, ROLLBACK finds no transaction), so that a turn kept on an
// error would stop every later writer.
func (t *sqliteTx) Rollback() error {
	err := t.tx.Rollback()
	t.done()
	if err == nil || errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

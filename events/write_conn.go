package events

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// writeConn is one connection of the store's pool kept aside for
// herd's own write transactions, and the turn to use it, so that a write
// never waits for a pool connection behind readers, and herd's writers
// wait for one another in the order they came. On two cores, with the
// pool's other connections busy with view reads (API reads, reconcilers),
// the group commit's leader waited for a connection at 8–17% of the time
// it held the write path; SQLite has one writer at a time anyway, so one
// connection kept for writes costs readers nothing they could have used.
// It is taken when the store opens, before anyone reads, and is one more
// than Config.MaxOpenConns, which still bounds the readers.
//
// Every write of the process takes its turn here: the group commit's
// transactions (Log.Begin), the watch hub's snapshots, the followers'
// positions and the health probe. They used to meet in SQLite's own
// wait for its write lock, which is no queue: a waiter sleeps and looks
// again (at best every 100 ms), so under load the group commit's leader
// could wait through several snapshot saves that came after it. The turn
// is a queue: writers blocked on it are let in first come, first served.
//
// A writer that waits turnWait without getting the turn — one written
// inside another's write transaction, or behind a very long one — takes
// a connection of the pool instead and waits for SQLite's lock there, as
// every write did before, which a nested write cannot get either: it
// fails after SQLite's busy timeout rather than waiting forever.
type writeConn struct {
	turn turnQueue
	conn *sql.Conn // nil once closed, or when it could not be taken; the turn's holder's
	// wait is how long a writer waits for the turn before it takes a
	// pool connection instead: SQLite's busy timeout, so that a write
	// waits no longer for the turn than it would have for the lock.
	wait time.Duration
	// taken, when set (by tests), is told of each writer that gets the
	// turn after waiting for it.
	taken func(context.Context)
}

// turnQueue is a lock handed on first come, first served: a writer that
// finds it held joins the queue, and the holder, when done, hands it to
// the queue's first writer directly (sync.Mutex would let a newcomer take
// it ahead of those waiting).
type turnQueue struct {
	mu      sync.Mutex
	held    bool
	waiters []chan struct{} // closed when the turn is handed to its writer
	// waiting counts the writers in the queue, for tests and metrics.
	waiting atomic.Int32
}

// tryTake takes the turn if no one holds it or waits for it.
func (q *turnQueue) tryTake() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.held {
		return false
	}
	q.held = true
	return true
}

// take waits in the queue for the turn until ctx ends or timeout fires;
// false when either came first.
func (q *turnQueue) take(ctx context.Context, timeout <-chan time.Time) bool {
	q.mu.Lock()
	if !q.held {
		q.held = true
		q.mu.Unlock()
		return true
	}
	handed := make(chan struct{})
	q.waiters = append(q.waiters, handed)
	q.waiting.Add(1)
	q.mu.Unlock()
	select {
	case <-handed:
		return true
	case <-ctx.Done():
	case <-timeout:
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if i := slices.Index(q.waiters, handed); i >= 0 {
		q.waiters = slices.Delete(q.waiters, i, i+1)
		q.waiting.Add(-1)
		return false
	}
	// Handed over as done came: the turn is this writer's after all.
	return true
}

// give hands the turn to the first writer in the queue, or frees it.
func (q *turnQueue) give() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiters) == 0 {
		q.held = false
		return
	}
	next := q.waiters[0]
	q.waiters = slices.Delete(q.waiters, 0, 1)
	q.waiting.Add(-1)
	close(next)
}

// reserve takes the connection kept for writes from db; a writer waits
// for its turn at most wait.
func (w *writeConn) reserve(ctx context.Context, db *sql.DB, wait time.Duration) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	w.wait, w.conn = wait, c
	return nil
}

// take waits for the turn, for at most wait; false when it did not come.
func (w *writeConn) take(ctx context.Context, wait time.Duration) (bool, error) {
	if w.turn.tryTake() {
		return true, nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	if !w.turn.take(ctx, t.C) {
		return false, ctx.Err()
	}
	if w.taken != nil {
		w.taken(ctx)
	}
	return true, nil
}

// give hands the turn to the next writer.
func (w *writeConn) give() { w.turn.give() }

// begin takes the turn and starts a write transaction on the kept
// connection, and returns it with the function that hands the turn on
// (call it once the transaction is over); ok is false when the turn did
// not come in time or the connection is gone, and the caller uses the
// pool.
func (w *writeConn) begin(ctx context.Context) (tx *sql.Tx, release func(), ok bool, err error) {
	taken, err := w.take(ctx, w.wait)
	if !taken {
		return nil, nil, false, err
	}
	if w.conn == nil {
		w.give()
		return nil, nil, false, nil
	}
	tx, err = w.conn.BeginTx(ctx, nil)
	if err != nil {
		if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
			// The connection is gone or broken: the pool serves this
			// write and every later one.
			_ = w.conn.Close()
			w.conn = nil
			w.give()
			return nil, nil, false, nil
		}
		w.give()
		return nil, nil, true, err
	}
	var once sync.Once
	return tx, func() { once.Do(w.give) }, true, nil
}

// beginWrite starts a write transaction of the store's own, in its turn
// on the connection kept for writes (see writeConn), or on the pool when
// that cannot be had; release, never nil, ends the turn once the
// transaction is over.
func (s *Store) beginWrite(ctx context.Context) (tx *sql.Tx, release func(), err error) {
	tx, release, kept, err := s.writer.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	if kept {
		return tx, release, nil
	}
	if tx, err = s.db.BeginTx(ctx, nil); err != nil {
		return nil, nil, err
	}
	return tx, func() {}, nil
}

// execWrite runs one writing statement outside a transaction, in its turn
// on the connection kept for writes, or on the pool when that cannot be
// had.
func (s *Store) execWrite(ctx context.Context, query string, args ...any) error {
	w := &s.writer
	taken, err := w.take(ctx, w.wait)
	if err != nil {
		return err
	}
	if taken {
		defer w.give()
		if w.conn != nil {
			_, err := w.conn.ExecContext(ctx, query, args...)
			if !errors.Is(err, sql.ErrConnDone) && !errors.Is(err, driver.ErrBadConn) {
				return err
			}
			// Gone or broken: the pool serves this write and every later
			// one, as begin does.
			_ = w.conn.Close()
			w.conn = nil
		}
	}
	_, err = s.db.ExecContext(ctx, query, args...)
	return err
}

// close hands the kept connection back to the pool. One still in a write
// transaction (its caller never ended it) is left to the pool's Close, as
// any pool connection in use is.
func (w *writeConn) close() error {
	if !w.turn.tryTake() {
		return nil
	}
	defer w.give()
	if w.conn == nil {
		return nil
	}
	err := w.conn.Close()
	w.conn = nil
	return err
}

// WithWriteConn runs fn on the connection the store keeps for its write
// transactions, once no write transaction is on it, for what must be set
// on every connection (a test's page limit standing for a full disk). It
// does nothing when the store keeps none.
func (s *Store) WithWriteConn(ctx context.Context, fn func(*sql.Conn) error) error {
	w := &s.writer
	taken, err := w.take(ctx, time.Duration(1<<63-1))
	if err != nil || !taken {
		return err
	}
	defer w.give()
	if w.conn == nil {
		return nil
	}
	return fn(w.conn)
}

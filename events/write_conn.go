package events

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"
)

// writeConn is one connection of the store's pool kept aside for the
// log's write transactions (Log.Begin: the group commit's), so that a
// write never waits for a pool connection behind readers. On two cores,
// with the pool's other connections busy with view reads (API reads,
// reconcilers), the group commit's leader waited for a connection at 8–17%
// of the time it held the write path; SQLite has one writer at a time
// anyway, so one connection kept for writes costs readers nothing they
// could have used. It is taken when the store opens, before anyone reads,
// and is one more than Config.MaxOpenConns, which still bounds the readers.
//
// A Begin that finds it in use by another write transaction — one that
// would hold SQLite's write lock anyway — takes a connection of the pool
// instead and waits for the lock there, as every write did before.
type writeConn struct {
	mu   sync.Mutex // held from Begin to that transaction's end
	conn *sql.Conn  // nil once closed, or when it could not be taken
}

// reserve takes the connection kept for writes from db.
func (w *writeConn) reserve(ctx context.Context, db *sql.DB) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	w.conn = c
	return nil
}

// begin starts a write transaction on the kept connection and returns it
// with the function that hands the connection back (call it once the
// transaction is over); ok is false when the connection is in use or
// gone, and the caller uses the pool.
func (w *writeConn) begin(ctx context.Context) (tx *sql.Tx, release func(), ok bool, err error) {
	if !w.mu.TryLock() {
		return nil, nil, false, nil
	}
	if w.conn == nil {
		w.mu.Unlock()
		return nil, nil, false, nil
	}
	tx, err = w.conn.BeginTx(ctx, nil)
	if err != nil {
		if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
			// The connection is gone or broken: the pool serves this
			// write and every later one.
			_ = w.conn.Close()
			w.conn = nil
			w.mu.Unlock()
			return nil, nil, false, nil
		}
		w.mu.Unlock()
		return nil, nil, true, err
	}
	var once sync.Once
	return tx, func() { once.Do(w.mu.Unlock) }, true, nil
}

// close hands the kept connection back to the pool. One still in a write
// transaction (its caller never ended it) is left to the pool's Close, as
// any pool connection in use is.
func (w *writeConn) close() error {
	if !w.mu.TryLock() {
		return nil
	}
	defer w.mu.Unlock()
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
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn == nil {
		return nil
	}
	return fn(w.conn)
}

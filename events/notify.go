package events

import (
	"database/sql"
	"sync"
)

// commits broadcasts the log's head to the in-process followers (the
// reconcilers' dispatcher, the watch hub) when a transaction that appended
// commits, so that they read the log when there is something to read
// rather than on a timer. A follower that misses a signal (one written by
// another process, say) still catches up on its fallback poll.
type commits struct {
	mu   sync.Mutex
	head int64
	ch   chan struct{}
}

// Committed tells the store's followers that a transaction appending up to
// position head has committed. The unit of work calls it after every
// commit that appended; a head at or below one already announced wakes
// nobody.
func (s *Store) Committed(head int64) {
	c := &s.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	if head <= c.head {
		return
	}
	c.head = head
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// CommitSignal returns the newest head announced by Committed and a
// channel that is closed by the next announcement past it. Take the
// signal before reading the log, then wait on the channel once the read
// found nothing new: a commit between the two closes the channel, so it is
// never missed.
func (s *Store) CommitSignal() (int64, <-chan struct{}) {
	c := &s.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.head, c.ch
}

// lastAppend is the newest position appended and the transaction that
// appended it, until that transaction commits. Every write transaction
// begins IMMEDIATE (the DSN's _txlock), so only one transaction at a time
// can have appended and not yet ended: one slot is enough. It holds the
// transaction itself, so a rolled-back one is never mistaken for a new
// one at the same address.
type lastAppend struct {
	mu  sync.Mutex
	tx  *sql.Tx
	pos int64
}

// noteAppend records that tx appended up to pos.
func (s *Store) noteAppend(tx *sql.Tx, pos int64) {
	a := &s.lastAppend
	a.mu.Lock()
	a.tx, a.pos = tx, pos
	a.mu.Unlock()
}

// Commit commits tx and, when it appended, announces the highest position
// it appended (see Committed), so that the log's followers read it at
// once rather than on their fallback poll. It is for a transaction that
// appends on its own; herd's unit of work commits groups of commands with
// savepoints, knows which of them were rolled back, and announces its
// heads itself.
func (s *Store) Commit(tx *sql.Tx) error {
	// Taken before the commit: until then tx holds the write lock, so no
	// other transaction can have appended since.
	a := &s.lastAppend
	a.mu.Lock()
	var head int64
	if a.tx == tx {
		head, a.tx = a.pos, nil
	}
	a.mu.Unlock()
	if err := tx.Commit(); err != nil {
		return err
	}
	if head > 0 {
		s.Committed(head)
	}
	return nil
}

package events

import "sync"

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
func (s *Store) Committed(head int64) { s.commits.announce(head) }

// CommitSignal returns the newest head announced by Committed and a
// channel that is closed by the next announcement past it. Take the
// signal before reading the log, then wait on the channel once the read
// found nothing new: a commit between the two closes the channel, so it is
// never missed.
func (s *Store) CommitSignal() (int64, <-chan struct{}) { return s.commits.signal() }

func (c *commits) announce(head int64) {
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

// announced is the newest head announced.
func (c *commits) announced() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head
}

func (c *commits) signal() (int64, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.head, c.ch
}

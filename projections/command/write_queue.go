package command

import (
	"container/list"
	"context"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// WriteQueue says how far behind herd's write path is: every command of
// the unit of work (an API request's, a kubelet poll's, a reconciler's)
// is in it from the moment it asks for a place in a group commit until
// its group has committed or failed. The age of the oldest is how long
// the write path makes a caller wait now: milliseconds on a herd that
// keeps up, seconds when it has fallen behind (ARCHITECTURE.md, "When
// herd falls behind"). Ages are read on the machine's monotonic clock,
// not on herd's (the one its heartbeats and deadlines are stamped with):
// how long a caller waited is wall time, and herd's clock may be moved
// (a test's fake clock stepped an hour) without anyone having waited.
// It counts this process's
// writes only: another replica on the same PostgreSQL database has its
// own.
type WriteQueue struct {
	clock clock.PassiveClock

	mu sync.Mutex
	// waiting holds each command's time of arrival, oldest first.
	waiting list.List
	// held, while a Hold lasts, is the commands it holds, in order of
	// arrival; holding says a Hold lasts.
	held    []*heldCommand
	holding bool
	// threshold and onChange say when the queue is behind (SetBehind);
	// behind is whether it was, as last judged.
	threshold time.Duration
	onChange  func(behind bool, oldest time.Duration)
	behind    bool
}

// newWriteQueue returns an empty queue read on clk: clock.RealClock (whose
// readings carry the monotonic clock) but in the queue's own tests.
func newWriteQueue(clk clock.PassiveClock) *WriteQueue {
	return &WriteQueue{clock: clk}
}

// SetClock reads the queue's ages on clk from now on instead of the
// machine's monotonic clock: for a test that stands for a write path
// that waited minutes by stepping a fake clock, which it then hands to
// the queue too. It is set while no command waits.
func (q *WriteQueue) SetClock(clk clock.PassiveClock) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.clock = clk
}

// SetBehind says when the write path counts as behind: once its oldest
// command has waited threshold (zero: never), and calls onChange (when
// not nil) on each change, with the oldest command's age: once when herd
// falls behind and once when it has caught up, not once per command. It
// is set once, before herd serves.
func (q *WriteQueue) SetBehind(threshold time.Duration, onChange func(behind bool, oldest time.Duration)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.threshold, q.onChange = threshold, onChange
}

// heldCommand is a command a Hold keeps: proceed is closed to let it on,
// gone once it has left the write path (or given up).
type heldCommand struct {
	proceed, gone chan struct{}
}

// enter adds a command arriving now; leave must be called once its
// group committed or failed. A held queue (Hold) keeps the caller in
// enter, counted as waiting, until it is released or ctx ends. A nil
// queue counts nothing.
func (q *WriteQueue) enter(ctx context.Context) (leave func(), err error) {
	if q == nil {
		return func() {}, nil
	}
	q.mu.Lock()
	e := q.waiting.PushBack(q.clock.Now())
	var h *heldCommand
	if q.holding {
		h = &heldCommand{proceed: make(chan struct{}), gone: make(chan struct{})}
		q.held = append(q.held, h)
	}
	change := q.judgeLocked()
	q.mu.Unlock()
	change()
	var once sync.Once
	leave = func() {
		once.Do(func() {
			q.mu.Lock()
			q.waiting.Remove(e)
			change := q.judgeLocked()
			q.mu.Unlock()
			change()
			if h != nil {
				close(h.gone)
			}
		})
	}
	if h != nil {
		select {
		case <-h.proceed:
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		}
	}
	return leave, nil
}

// Oldest is how long the oldest command in the write path has waited
// for its commit, zero when none waits.
func (q *WriteQueue) Oldest() time.Duration {
	q.mu.Lock()
	age := q.oldestLocked()
	q.mu.Unlock()
	return age
}

// Waiting is how many commands wait for their commit now.
func (q *WriteQueue) Waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting.Len()
}

// Behind reports the oldest command's age and whether it is past the
// threshold SetBehind gave; judging it tells onChange of a change.
func (q *WriteQueue) Behind() (time.Duration, bool) {
	q.mu.Lock()
	age := q.oldestLocked()
	change := q.judgeLocked()
	behind := q.behind
	q.mu.Unlock()
	change()
	return age, behind
}

// Hold keeps every command that arrives from now on waiting, in the
// queue, until release is called: the write path stalled as a slow disk
// or a long lock stalls it, so that tests can show what herd does while
// its writes wait. Commands already past the queue go on. Released, the
// held commands go on one at a time, in the order they arrived, as the
// group commit would have taken them.
func (q *WriteQueue) Hold() (release func()) {
	q.mu.Lock()
	q.holding = true
	q.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			held := q.held
			q.held, q.holding = nil, false
			q.mu.Unlock()
			for _, h := range held {
				close(h.proceed)
				<-h.gone
			}
		})
	}
}

func (q *WriteQueue) oldestLocked() time.Duration {
	front := q.waiting.Front()
	if front == nil {
		return 0
	}
	return max(0, q.clock.Since(front.Value.(time.Time)))
}

// judgeLocked updates behind and returns what tells onChange of a
// change, to be called once the lock is released (onChange may log).
func (q *WriteQueue) judgeLocked() func() {
	if q.threshold <= 0 {
		return func() {}
	}
	age := q.oldestLocked()
	now := age >= q.threshold
	if now == q.behind || q.onChange == nil {
		q.behind = now
		return func() {}
	}
	q.behind = now
	on := q.onChange
	return func() { on(now, age) }
}

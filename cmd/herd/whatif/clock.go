package whatif

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// simClock is the simulation's fake clock, which also knows when the
// next thing waiting on it is due: a timer's deadline, a ticker's next
// tick. The simulation moves the clock from one such time to the next
// (and to each input's), never past one, so that a reconciler's timer
// fires at its own time, and an idle stretch of the window costs one
// step rather than one per second.
type simClock struct {
	*clocktesting.FakeClock

	mu      sync.Mutex
	waiters []*waiter
}

// waiter is one timer or ticker made on the clock.
type waiter struct {
	at      time.Time     // a timer's deadline, a ticker's first tick
	period  time.Duration // a ticker's; 0 for a timer
	stopped bool
}

var _ clock.WithTickerAndDelayedExecution = (*simClock)(nil)

func newSimClock(at time.Time) *simClock {
	return &simClock{FakeClock: clocktesting.NewFakeClock(at)}
}

func (c *simClock) add(d, period time.Duration) *waiter {
	w := &waiter{at: c.Now().Add(d), period: period}
	c.mu.Lock()
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	return w
}

func (c *simClock) stop(w *waiter) {
	c.mu.Lock()
	w.stopped = true
	c.mu.Unlock()
}

// next is the earliest time after now at which a timer or ticker made on
// the clock is due; false when none is.
func (c *simClock) next(now time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var (
		best  time.Time
		found bool
		keep  = c.waiters[:0]
	)
	for _, w := range c.waiters {
		if w.stopped || (w.period == 0 && !w.at.After(now)) {
			continue // stopped, or a timer already fired
		}
		keep = append(keep, w)
		at := w.at
		if w.period > 0 && !at.After(now) {
			at = at.Add((now.Sub(at)/w.period + 1) * w.period)
		}
		if !found || at.Before(best) {
			best, found = at, true
		}
	}
	clear(c.waiters[len(keep):])
	c.waiters = keep
	return best, found
}

// After implements clock.Clock.
func (c *simClock) After(d time.Duration) <-chan time.Time {
	c.add(d, 0)
	return c.FakeClock.After(d)
}

// NewTimer implements clock.Clock.
func (c *simClock) NewTimer(d time.Duration) clock.Timer {
	return &simTimer{Timer: c.FakeClock.NewTimer(d), c: c, w: c.add(d, 0)}
}

// AfterFunc implements clock.WithDelayedExecution.
func (c *simClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return &simTimer{Timer: c.FakeClock.AfterFunc(d, f), c: c, w: c.add(d, 0)}
}

// Tick implements clock.Clock.
func (c *simClock) Tick(d time.Duration) <-chan time.Time {
	c.add(d, d)
	return c.FakeClock.Tick(d)
}

// NewTicker implements clock.WithTicker.
func (c *simClock) NewTicker(d time.Duration) clock.Ticker {
	return &simTicker{Ticker: c.FakeClock.NewTicker(d), c: c, w: c.add(d, d)}
}

type simTimer struct {
	clock.Timer
	c *simClock
	w *waiter
}

func (t *simTimer) Stop() bool {
	t.c.stop(t.w)
	return t.Timer.Stop()
}

func (t *simTimer) Reset(d time.Duration) bool {
	t.c.stop(t.w)
	t.w = t.c.add(d, 0)
	return t.Timer.Reset(d)
}

type simTicker struct {
	clock.Ticker
	c *simClock
	w *waiter
}

func (t *simTicker) Stop() {
	t.c.stop(t.w)
	t.Ticker.Stop()
}

// forget drops every timer and ticker made so far.
func (c *simClock) forget() {
	c.mu.Lock()
	c.waiters = nil
	c.mu.Unlock()
}

package reconcilers

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"time"
)

// Settler answers "have herd's reconcilers finished what the log and the
// clock gave them?" for a caller that moves herd's clock itself: the
// what-if's simulated past and the behaviour specs' fake clock. It
// predicts the resync passes each reconciler owes as the clock moves (a
// fake ticker fires once when its next tick is reached, then schedules
// the first tick after the new time) and waits until every running
// reconciler has made them, has read the log up to its head, and has
// nothing queued, in flight, retrying or due.
//
// A key taken off a queue shows as neither queued nor in flight for an
// instant, and one reconciler's work can give another more, so Settle
// wants three quiet looks in a row, QuietWait apart. While a reconciler
// is busy it looks again as soon as a runner makes progress, or at the
// latest after a wait that grows from FirstWait to LongestWait: a timer
// alone woke it no sooner than a millisecond (Go wakes a process whose
// goroutines all sleep no sooner, however short the wait), which a
// simulation that settles tens of thousands of times paid in full.
type Settler struct {
	m    *Manager
	head func(context.Context) (int64, error)
	owed map[string]*resyncTicks
	// FirstWait is the pause between two looks while the reconcilers
	// are quiet; it doubles, up to LongestWait, while they are busy.
	FirstWait, LongestWait time.Duration
	// Timeout bounds one Settle, in wall time.
	Timeout time.Duration
	// LookAtOnce makes the first look without a pause: most of a
	// simulation's steps give the reconcilers nothing to do.
	LookAtOnce bool
	// QuietWait is the pause after a quiet look, before the next; zero
	// is FirstWait. It must outlast the instant a worker takes a key off
	// its queue before counting it in flight.
	QuietWait time.Duration
	// YieldWhenQuiet makes the looks that confirm a quiet one follow a
	// yield of the processor (runtime.Gosched) instead of QuietWait: a
	// timer, however short, wakes an idle process a millisecond late.
	// Status.Unfinished never misses a key a worker is taking, so the
	// confirming looks need no pause for that; they are for a caller
	// that writes to the log only itself (the what-if) and whose
	// reconcilers do nothing outside their queues.
	YieldWhenQuiet bool
}

// resyncTicks predicts one reconciler's resync ticks on a moved clock.
type resyncTicks struct {
	period time.Duration
	next   time.Time
	owed   int64
}

// NewSettler follows m's running reconcilers from now on herd's clock;
// head says where the log's head is. Each reconciler that resyncs owes
// the pass it makes as it starts.
func NewSettler(m *Manager, now time.Time, head func(context.Context) (int64, error)) *Settler {
	s := &Settler{
		m: m, head: head, owed: map[string]*resyncTicks{},
		FirstWait: 2 * time.Millisecond, LongestWait: 2 * time.Millisecond, Timeout: 10 * time.Second,
	}
	for _, name := range m.Running() {
		if st, _ := m.Status(name); st.ResyncPeriod > 0 {
			s.owed[name] = &resyncTicks{period: st.ResyncPeriod, next: now.Add(st.ResyncPeriod), owed: 1}
		}
	}
	return s
}

// ClockMoved tells the settler that herd's clock now reads t: every
// reconciler whose next resync tick is reached owes one more pass.
func (s *Settler) ClockMoved(t time.Time) {
	for _, r := range s.owed {
		if !t.Before(r.next) {
			r.owed++
			for !r.next.After(t) {
				r.next = r.next.Add(r.period)
			}
		}
	}
}

// Busy names the first running reconciler that has not settled at head
// (with its progress), or returns "" when none.
func (s *Settler) Busy(head int64) string {
	name, st, want, busy := s.busy(head)
	if !busy {
		return ""
	}
	return fmt.Sprintf("%s: %+v, want %d resyncs, log head %d", name, st, want, head)
}

// busy is Busy's look without its words: Settle looks tens of thousands
// of times in a what-if and words only the look that times out.
func (s *Settler) busy(head int64) (name string, st Status, want int64, busy bool) {
	for _, r := range s.m.enabled {
		name = r.Name()
		st, _ = s.m.Status(name)
		want = 0
		if r := s.owed[name]; r != nil {
			want = r.owed
		}
		if st.Resyncs < want || !st.Settled(head) {
			return name, st, want, true
		}
	}
	return "", Status{}, 0, false
}

// Settle waits until Busy has been empty three looks in a row, and says
// which reconciler was still busy when Timeout ran out.
func (s *Settler) Settle(ctx context.Context) error {
	deadline := time.Now().Add(s.Timeout) // wall time: a bound on the wait
	quiet := 0
	wait, pause := s.FirstWait, s.FirstWait
	// changed wakes a pause after a busy look when a runner makes
	// progress; it is taken before the look, so that progress made after
	// the look is not missed. A pause after a quiet look lasts.
	var changed <-chan struct{}
	stuck := 0
	for first := true; quiet < 3; first = false {
		switch {
		case first && s.LookAtOnce:
		case quiet > 0 && s.YieldWhenQuiet:
			runtime.Gosched()
			if err := ctx.Err(); err != nil {
				return err
			}
		default:
			timer := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				timer.Stop()
				return ctx.Err()
			case <-changed:
				timer.Stop()
			case <-timer.C:
			}
		}
		changed = s.m.activity.changed()
		head, err := s.head(ctx)
		if err != nil {
			return err
		}
		_, st, _, busy := s.busy(head)
		if !busy {
			quiet++
			wait, pause, changed = s.FirstWait, cmp.Or(s.QuietWait, s.FirstWait), nil
			continue
		}
		quiet = 0
		pause, wait = wait, min(2*wait, s.LongestWait)
		// A reconciler with nothing to do but requeues whose time has
		// come, at two looks in a row, has lost them to the delaying
		// queue's timer (runner.addDue): they are put back.
		if st.Due > 0 && st.Queued == 0 && st.InFlight == 0 && st.Unfinished == 0 {
			if stuck++; stuck >= 2 {
				s.m.addDue()
				stuck = 0
			}
		} else {
			stuck = 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("herd's reconcilers did not settle within %s: %s", s.Timeout, s.Busy(head))
		}
	}
	return nil
}

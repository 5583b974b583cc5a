package whatif

import (
	"testing"
	"time"
)

// TestSimClockKnowsWhatIsDueNext: the simulation steps the clock from one
// due time to the next, so the clock must know each timer's deadline and
// each ticker's next tick, and forget those stopped or fired.
func TestSimClockKnowsWhatIsDueNext(t *testing.T) {
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := newSimClock(start)
	next := func(want time.Time, ok bool) {
		t.Helper()
		got, found := c.next(c.Now())
		if found != ok || (ok && !got.Equal(want)) {
			t.Fatalf("at %s the next due time is %s (%v), want %s (%v)", c.Now().Format(time.TimeOnly), got.Format(time.TimeOnly), found, want.Format(time.TimeOnly), ok)
		}
	}
	next(time.Time{}, false)

	ticker := c.NewTicker(5 * time.Second)
	timer := c.NewTimer(3 * time.Second)
	next(start.Add(3*time.Second), true)

	c.SetTime(start.Add(3 * time.Second))
	<-timer.C()
	next(start.Add(5*time.Second), true) // the timer fired: the ticker is next

	c.SetTime(start.Add(12 * time.Second))
	next(start.Add(15*time.Second), true) // the ticker's next tick, on its period

	timer.Reset(time.Second)
	next(start.Add(13*time.Second), true)
	timer.Stop()
	next(start.Add(15*time.Second), true)

	after := c.AfterFunc(2*time.Second, func() {})
	next(start.Add(14*time.Second), true)
	after.Stop()
	ticker.Stop()
	next(time.Time{}, false)

	c.NewTicker(time.Minute)
	c.forget()
	next(time.Time{}, false)
}

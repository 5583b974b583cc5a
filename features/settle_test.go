package features

import (
	"context"
	"fmt"
	"time"
)

// settleTimeout bounds the wait for herd's reconcilers to finish what a step
// set off. They take milliseconds; watermill polls every 10 ms here.
const settleTimeout = 10 * time.Second

// setClock moves herd's fake clock to t and, when reconcilers run, waits
// until the monitor tick that the move causes (if any) has been handled.
// The fake clock's ticker fires once when its next tick is reached, then
// schedules the first tick after the new time; setClock predicts the same.
func (w *world) setClock(t time.Time) error {
	w.clock.SetTime(t)
	if w.recs == nil {
		return nil
	}
	if !t.Before(w.monitor.next) {
		w.monitor.expected++
		for !w.monitor.next.After(t) {
			w.monitor.next = w.monitor.next.Add(w.monitor.period)
		}
	}
	return w.settle()
}

// settle waits until the health reconciler has done every resync the clock
// asked for, its consumer has read the whole log, and its queue is empty
// with nothing in flight — twice in a row, since a key taken off the queue
// shows as neither queued nor in flight for an instant.
func (w *world) settle() error {
	if w.recs == nil {
		return nil
	}
	deadline := time.Now().Add(settleTimeout)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	quiet := 0
	for quiet < 2 {
		if time.Now().After(deadline) {
			st, _ := w.recs.Status("health")
			return fmt.Errorf("herd's reconcilers did not settle within %s: %+v, want %d resyncs", settleTimeout, st, w.monitor.expected)
		}
		<-tick.C
		st, ok := w.recs.Status("health")
		if !ok {
			return nil
		}
		head, err := w.store.Head(context.Background(), w.store.DB())
		if err != nil {
			return err
		}
		if st.Resyncs >= w.monitor.expected && st.Queued == 0 && st.InFlight == 0 && st.Position >= head {
			quiet++
		} else {
			quiet = 0
		}
	}
	return nil
}

package features

import (
	"context"
	"fmt"
	"time"
)

// settleTimeout bounds the wait for herd's reconcilers to finish what a step
// set off. They take milliseconds; watermill polls every 10 ms here.
const settleTimeout = 10 * time.Second

// resyncTicks predicts one reconciler's resync ticks on the fake clock.
type resyncTicks struct {
	period   time.Duration
	next     time.Time
	expected int64
}

// setClock moves herd's fake clock to t. While herd polls kubelets, time
// moves in steps of at most kubeletStep, each taken once every poller
// waits, as it would in real time: a kubelet's heartbeat and the health
// check then come in their real order, not both at the end of a jump.
func (w *world) setClock(t time.Time) error {
	for w.polling() && t.Sub(w.clock.Now()) > kubeletStep {
		if err := w.moveClock(w.clock.Now().Add(kubeletStep)); err != nil {
			return err
		}
	}
	return w.moveClock(t)
}

// moveClock moves herd's fake clock to t and, when reconcilers run, waits
// until the resync ticks that the move causes (if any) have been handled.
// The fake clock's ticker fires once when its next tick is reached, then
// schedules the first tick after the new time; moveClock predicts the
// same. Kubelet pollers must wait before the clock moves, or they would
// miss it, and are waited for after.
func (w *world) moveClock(t time.Time) error {
	if err := w.waitPollers(); err != nil {
		return err
	}
	w.clock.SetTime(t)
	if err := w.waitPollers(); err != nil {
		return err
	}
	if w.recs == nil {
		return nil
	}
	for _, r := range w.resyncs {
		if !t.Before(r.next) {
			r.expected++
			for !r.next.After(t) {
				r.next = r.next.Add(r.period)
			}
		}
	}
	return w.settle()
}

// settle waits until every reconciler has done the resyncs the clock asked
// for, its consumer has read the whole log, and nothing is queued, in
// flight, retrying or due — twice in a row, since a key taken off the
// queue shows as neither queued nor in flight for an instant, and one
// reconciler's work can give another more.
func (w *world) settle() error {
	if w.recs == nil {
		return nil
	}
	deadline := time.Now().Add(settleTimeout)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	quiet := 0
	for quiet < 3 {
		<-tick.C
		head, err := w.log.Head(context.Background())
		if err != nil {
			return err
		}
		busy := ""
		for _, name := range w.recs.Running() {
			st, _ := w.recs.Status(name)
			want := int64(0)
			if r := w.resyncs[name]; r != nil {
				want = r.expected
			}
			if st.Resyncs < want || !st.Settled(head) {
				busy = fmt.Sprintf("%s: %+v, want %d resyncs, log head %d", name, st, want, head)
				break
			}
		}
		if busy == "" {
			quiet++
			continue
		}
		quiet = 0
		if time.Now().After(deadline) {
			return fmt.Errorf("herd's reconcilers did not settle within %s: %s", settleTimeout, busy)
		}
	}
	return nil
}

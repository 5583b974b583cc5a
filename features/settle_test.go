package features

import (
	"context"
	"time"
)

// settleTimeout bounds the wait for herd's reconcilers to finish what a step
// set off. They take milliseconds; watermill polls every 10 ms here.
const settleTimeout = 10 * time.Second

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
	w.settler.ClockMoved(t)
	return w.settle()
}

// settle waits until herd's reconcilers have done the resyncs the clock
// asked for and everything the log gave them (reconcilers.Settler).
func (w *world) settle() error {
	if w.recs == nil {
		return nil
	}
	return w.settler.Settle(context.Background())
}

package reconcilers

import "sync/atomic"

// activity wakes whoever waits for the reconcilers to make progress (a
// Settler): a runner signals it when its progress may have let it settle
// (the dispatcher moved its position, a reconcile or a resync ended, a
// retry was queued). A waiter takes the channel before it looks at the
// runners and waits on it after, so a signal between the two is not
// missed. Nobody waits in herd serve: a signal is then one atomic load.
type activity struct {
	ch atomic.Pointer[chan struct{}]
}

// changed is a channel closed by the next signal.
func (a *activity) changed() <-chan struct{} {
	for {
		if p := a.ch.Load(); p != nil {
			return *p
		}
		ch := make(chan struct{})
		if a.ch.CompareAndSwap(nil, &ch) {
			return ch
		}
	}
}

// signal wakes every waiter. A nil activity (a runner made outside a
// Manager) signals nobody.
func (a *activity) signal() {
	if a == nil || a.ch.Load() == nil {
		return
	}
	if p := a.ch.Swap(nil); p != nil {
		close(*p)
	}
}

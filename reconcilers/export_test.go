package reconcilers

import "time"

// LoseRequeue records that the named reconciler asked for key again at
// at, without the delaying queue ever delivering it: what happens when
// the queue's timer is set from a time a simulated clock has left.
func LoseRequeue(m *Manager, name string, key Key, at time.Time) {
	for _, rn := range m.current() {
		if rn.r.Name() == name {
			rn.requeueMu.Lock()
			rn.requeueAt[key] = at
			rn.requeueMu.Unlock()
		}
	}
}

package domain

import "time"

// IfSamePod decides Command only on the pod a reconciler looked at: one
// that still exists with the same UID (not another pod created under its
// name since) and, when NodeName is set, still bound to that node. On any
// other it does nothing, without an error: the reconciler wakes again for
// the pod as it now is.
type IfSamePod struct {
	// UID is the pod's UID as the reconciler saw it.
	UID string
	// NodeName, when set, is the node the pod must still be bound to.
	NodeName string
	// Command is decided on the same pod.
	Command PodCommand
}

func (c IfSamePod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if !p.Exists() || p.UID != c.UID || (c.NodeName != "" && p.Spec.NodeName != c.NodeName) {
		return nil, nil
	}
	return DecidePod(p, c.Command, now)
}

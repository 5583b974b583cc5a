package domain

import "time"

// DeregisterKubeletNode deregisters the node of a kubelet herd stops
// observing. A node herd never registered, or one that is not a kubelet's,
// is left as it is, without an error.
type DeregisterKubeletNode struct {
	// Message says why, on the node's Ready condition.
	Message string
}

func (c DeregisterKubeletNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if !n.Exists() || n.Kind != KindKubelet {
		return nil, nil
	}
	return DecideNode(n, DeregisterNode(c), now)
}

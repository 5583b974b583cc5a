package domain

import (
	"fmt"
	"time"
)

// RegisterKubeletNode registers the node of a kubelet herd polls, when
// herd first reaches it, when it comes back after herd stopped observing
// it, and when the kubelet restarted. A node of another kind under the
// same name is refused with ErrConflict: the name is not the kubelet's.
// A node already registered and running is left as it is unless the
// kubelet restarted. The node keeps the UID herd gave it first.
type RegisterKubeletNode struct {
	// Registration is the node as the kubelet describes it.
	Registration Registration
	// Restarted says the kubelet restarted since herd last registered it.
	Restarted bool
}

func (c RegisterKubeletNode) decideNode(n Node, now time.Time) ([]Event, error) {
	reg := c.Registration
	if n.Exists() {
		if n.Kind != KindKubelet {
			return nil, fmt.Errorf("node %q is a %s node, not this kubelet's: %w", n.Name, n.Kind, ErrConflict)
		}
		if n.AgentState != AgentStopped && !c.Restarted {
			return nil, nil
		}
		reg.UID = n.UID
	}
	return DecideNode(n, RegisterNode{Registration: reg}, now)
}

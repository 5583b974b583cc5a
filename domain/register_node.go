package domain

import (
	"fmt"
	"maps"
	"time"
)

// RegisterNode is a node announcing itself: a herd agent starting, a kubelet
// first polled, a Pico posting its Node object.
//
// The first registration of a name (or the first since the node was
// deleted) records NodeRegistered: the node starts in AgentStarting with a
// restart count of 0, and StartedAt and RegisteredAt both set to now.
//
// A known node registering again has restarted, and NodeRestarted records
// it: the restart count goes up by one, the reason is RestartCleanStart when
// the node had deregistered (AgentStopped) and RestartCrashRecovery
// otherwise, everything the node registers with is replaced, and the agent
// is Starting again. StartedAt, LastHeartbeat and the conditions are kept
// until the next heartbeat says otherwise.
//
// Labels and annotations are the exception: a restart merges them, as a
// kubelet that registers again reconciles only the labels it manages and
// keeps every other one. What the node sends wins; what it does not send
// stays — the labels an administrator set (node-restriction.kubernetes.io/
// ones among them), which a node's own registration must never wipe.
type RegisterNode struct {
	Registration
	// FailIfExists rejects the registration of a known node with
	// ErrAlreadyExists instead of recording a restart. The Kubernetes
	// create (POST) sets it; an agent's own registration does not.
	FailIfExists bool
}

func (c RegisterNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := validateRegistration(c.Registration); err != nil {
		return nil, err
	}
	reg := c.Registration.clone()
	// The kind label is the kind again: the event records it once, and
	// EvolveNode derives the label.
	reg.Labels = withoutDerivedLabels(reg.Labels)
	if n.Name != "" && n.Name != reg.Name {
		// The repository loaded another node than the one registering:
		// a caller bug, never something to record.
		return nil, fmt.Errorf("register %s on %s: %w", nodeRef(reg.Name), nodeRef(n.Name), ErrConflict)
	}
	if !n.Exists() {
		return []Event{NodeRegistered{Registration: reg, At: now}}, nil
	}
	if c.FailIfExists {
		return nil, fmt.Errorf("%s: %w", nodeRef(reg.Name), ErrAlreadyExists)
	}
	reg.Labels = withoutDerivedLabels(merged(n.Labels, reg.Labels))
	reg.Annotations = merged(n.Annotations, reg.Annotations)
	reason := RestartCrashRecovery
	if n.AgentState == AgentStopped {
		reason = RestartCleanStart
	}
	return []Event{NodeRestarted{
		Registration: reg,
		RestartCount: n.RestartCount + 1,
		Reason:       reason,
		At:           now,
	}}, nil
}

// merged is kept with sent laid over it: the keys of both, sent's value
// where both have one. nil when both are empty. Neither map is changed.
func merged(kept, sent map[string]string) map[string]string {
	if len(kept) == 0 && len(sent) == 0 {
		return nil
	}
	out := make(map[string]string, len(kept)+len(sent))
	maps.Copy(out, kept)
	maps.Copy(out, sent)
	return out
}

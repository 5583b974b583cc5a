package projections

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"herd/domain"
)

// nodeHot is the part of a node that a plain heartbeat changes, stored
// apart from the rest in node_heartbeats (viewstore.Tables): the
// node's version and resourceVersion (every event moves them), its last
// heartbeat and latest figures, and the lastHeartbeatTime of each of its
// conditions, in their order.
type nodeHot struct {
	Version             int64                  `json:"version"`
	ResourceVersion     int64                  `json:"resourceVersion"`
	LastHeartbeat       time.Time              `json:"lastHeartbeat"`
	Metrics             *domain.Metrics        `json:"metrics,omitempty"`
	KubeletMetrics      *domain.KubeletMetrics `json:"kubeletMetrics,omitempty"`
	ConditionHeartbeats []time.Time            `json:"conditionHeartbeats,omitempty"`
}

// hotOf is n's hot part.
func hotOf(n domain.Node) nodeHot {
	h := nodeHot{Version: n.Version, ResourceVersion: n.ResourceVersion, LastHeartbeat: n.LastHeartbeat, Metrics: n.Metrics, KubeletMetrics: n.KubeletMetrics}
	if len(n.Conditions) > 0 {
		h.ConditionHeartbeats = make([]time.Time, len(n.Conditions))
		for i, c := range n.Conditions {
			// A zero time is the node's (domain.Node.ConditionsHeard):
			// the row holds it whole, as herd always wrote it.
			if c.LastHeartbeatTime.IsZero() {
				c.LastHeartbeatTime = n.LastHeartbeat
			}
			h.ConditionHeartbeats[i] = c.LastHeartbeatTime
		}
	}
	return h
}

// coldOf is n without its hot part: what the nodes row holds, the same
// bytes whatever heartbeats came since the last transition.
func coldOf(n domain.Node) domain.Node {
	n.Version, n.ResourceVersion, n.LastHeartbeat, n.Metrics, n.KubeletMetrics = 0, 0, time.Time{}, nil, nil
	// Conditions heard with the node hold no time already: the slice is
	// copied only when one holds its own.
	if slices.ContainsFunc(n.Conditions, func(c domain.Condition) bool { return !c.LastHeartbeatTime.IsZero() }) {
		n.Conditions = slices.Clone(n.Conditions)
		for i := range n.Conditions {
			n.Conditions[i].LastHeartbeatTime = time.Time{}
		}
	}
	return n
}

// withHot is n with h laid over it, n's conditions its own (just
// decoded): a condition heard with the node holds a zero time, as
// domain.EvolveNode keeps it, so that the node's next versions share the
// slice.
func (h nodeHot) withHot(n domain.Node) domain.Node {
	n.Version, n.ResourceVersion, n.LastHeartbeat, n.Metrics, n.KubeletMetrics = h.Version, h.ResourceVersion, h.LastHeartbeat, h.Metrics, h.KubeletMetrics
	for i := range min(len(n.Conditions), len(h.ConditionHeartbeats)) {
		t := h.ConditionHeartbeats[i]
		if !h.LastHeartbeat.IsZero() && t.Equal(h.LastHeartbeat) {
			t = time.Time{}
		}
		n.Conditions[i].LastHeartbeatTime = t
	}
	return n
}

// onlyHeartbeats reports whether evs change nothing but a node's hot part:
// every one a HeartbeatRecorded, whose evolve moves only the last
// heartbeat, the figures and the conditions' heartbeat times.
func onlyHeartbeats(evs []domain.Event) bool {
	for _, ev := range evs {
		if _, ok := ev.(domain.HeartbeatRecorded); !ok {
			return false
		}
	}
	return true
}

// unmarshalNode rebuilds a node from what node_rows reads: its cold JSON,
// a NUL byte and its hot JSON (none for a row written before the split,
// whose JSON is whole). It is the only way a Node is read back from
// storage.
func unmarshalNode(data []byte) (domain.Node, error) {
	cold, hot, _ := bytes.Cut(data, []byte{0})
	var n domain.Node
	if err := unmarshalStored(cold, &n); err != nil {
		return domain.Node{}, fmt.Errorf("decode node row: %w", err)
	}
	// The row's strings are its own: the node keeps one copy of those
	// a fleet repeats, as a node folded from the log does. Its
	// annotations are swapped for the map nodes of its shape share, so
	// they are left out of the interned copy rather than copied for
	// nothing.
	annotations := n.Annotations
	n.Annotations = nil
	n = n.Interned()
	n.Annotations = annotations
	n = sharingResources(n)
	if len(hot) == 0 {
		return n.WithConditionsHeardWithNode(), nil
	}
	var h nodeHot
	if err := unmarshalStored(hot, &h); err != nil {
		return domain.Node{}, fmt.Errorf("decode node %s's heartbeat row: %w", n.Name, err)
	}
	return h.withHot(n), nil
}

package domain

import (
	"slices"
	"time"
)

// EvolveNode folds one event into the node and returns the result. It is the
// only way a Node changes: the live view and `herd replay` both call it, so
// the same log always gives the same node.
//
// EvolveNode never mutates n: a map or slice it changes is copied first, so
// the caller's node (say, a snapshot kept for comparison) stays as it was.
// Maps and slices taken from e are copied too, so the result shares nothing
// with an event that may still be stored. Unchanged maps and slices are
// shared between n and the result: replay folds millions of heartbeats, and
// copying every label set each time would make it several times slower.
// Treat a Node as a value; Clone it before changing one in place.
//
// It increments Version for every event, including event types it does not
// know (they still occupy a place in the node's stream), and never touches
// ResourceVersion, which belongs to the projection. Events are expected as
// values, as DecideNode and UnmarshalEvent return them.
func EvolveNode(n Node, e Event) Node {
	n.Version++
	switch e := e.(type) {
	case NodeRegistered:
		fresh := Node{
			Version:         n.Version,
			ResourceVersion: n.ResourceVersion,
			AgentState:      AgentStarting,
			StartedAt:       e.At,
			RegisteredAt:    e.At,
		}
		return withRegistration(fresh, e.Registration)
	case NodeRestarted:
		n = withRegistration(n, e.Registration)
		// A restart does not end a drain: the operator ends it.
		if n.AgentState != AgentDraining && n.AgentState != AgentDrained {
			n.AgentState = AgentStarting
		}
		n.RestartCount = e.RestartCount
		n.LastRestartReason = e.Reason
		n.RegisteredAt = e.At
	case HeartbeatRecorded:
		n.LastHeartbeat = e.At
		if e.Metrics != nil {
			n.Metrics = e.Metrics.clone()
		}
		if e.Kubelet != nil {
			n.KubeletMetrics = e.Kubelet.clone()
		}
		// Every condition is heard now, with the node: one whose time is
		// the node's already keeps the slice it shares with the node's
		// earlier versions (see Node.ConditionsHeard).
		if ownTimes(n.Conditions) {
			n.Conditions = cloneSlice(n.Conditions)
			for i := range n.Conditions {
				n.Conditions[i].LastHeartbeatTime = time.Time{}
			}
		}
	case NodeConditionChanged:
		n.Conditions = applyCondition(n, e)
		n.PressureEasedAt = withoutEasing(n.PressureEasedAt, e.Type)
	case NodePressureEased:
		n.PressureEasedAt = withEasing(n.PressureEasedAt, e.Type, e.At)
	case NodePressureReturned:
		n.PressureEasedAt = withoutEasing(n.PressureEasedAt, e.Type)
	case NodeBecameReady:
		if n.AgentState == AgentStarting || n.AgentState == AgentStopped || n.AgentState == AgentLost {
			n.AgentState = AgentReady
		}
	case HeartbeatMissed:
		// A drain goes on and a clean stop stays a stop; a node that was
		// running, or never reported, is lost.
		if n.AgentState == AgentReady || n.AgentState == AgentStarting {
			n.AgentState = AgentLost
		}
		// What the mark changed, folded as the events it stands for were.
		n = foldParts(n, e)
	case NodeStatusChanged:
		n = foldParts(n, e)
	case NodeDeregistered:
		n.AgentState = AgentStopped
	case NodeTainted:
		n.Taints = append(slices.DeleteFunc(slices.Clone(n.Taints), func(t Taint) bool { return sameTaint(t, e.Taint) }), e.Taint)
	case NodeUntainted:
		n.Taints = slices.DeleteFunc(slices.Clone(n.Taints), func(t Taint) bool { return t.Key == e.Key && t.Effect == e.Effect })
		if len(n.Taints) == 0 {
			n.Taints = nil
		}
	case NodeCordoned:
		n.Unschedulable = true
	case NodeUncordoned:
		n.Unschedulable = false
	case NodeDrainStarted:
		n.Unschedulable = true
		n.AgentState = AgentDraining
		n.Drain = &NodeDrain{GracePeriodSeconds: cloneInt64(e.GracePeriodSeconds), RequestedAt: e.At}
	case NodeDrained:
		n.AgentState = AgentDrained
		if n.Drain != nil {
			d := *n.Drain
			d.DrainedAt = e.At
			n.Drain = &d
		}
	case NodeUndrained:
		n.Unschedulable = false
		n.Drain = nil
		n.AgentState = AgentStarting
		if c, ok := n.Condition(ConditionReady); ok && c.Status == ConditionTrue {
			n.AgentState = AgentReady
		}
	case NodeScrapeFailed:
		n.ScrapeFailure = &ScrapeFailure{Reason: e.Reason, Message: e.Message, Since: e.At}
	case NodeScrapeRecovered:
		n.ScrapeFailure = nil
	case NodeServiceFailed:
		n.FailedServices = withServiceFailed(n.FailedServices, e.Service, e.State)
	case NodeServiceRecovered:
		n.FailedServices = withServiceRecovered(n.FailedServices, e.Service)
	case NodeMachineObserved:
		n = e.apply(n)
	case NodeKubeletEndpointChanged:
		n = e.apply(n)
	case NodeLabelsChanged:
		n.Labels = withDerivedLabels(e.Labels, n)
		n.Annotations = internedStrings(e.Annotations)
	case NodeDeleted:
		// A tombstone keeps only what the stream needs: its name and
		// versions. A later NodeRegistered starts from nothing.
		return Node{
			Name:            n.Name,
			Deleted:         true,
			Version:         n.Version,
			ResourceVersion: n.ResourceVersion,
		}
	}
	return WithDerivedLabels(n)
}

// withRegistration returns n with every field a node registers with replaced
// by a deep copy of r's, its strings a fleet repeats interned, and its
// derived labels set.
func withRegistration(n Node, r Registration) Node {
	r = r.internedClone()
	n.Name = r.Name
	n.UID = r.UID
	n.Kind = r.Kind
	// herd's derived labels (herd.dev/kind) are stored with the node's own,
	// also when replaying a registration recorded before they were.
	n.Labels = withDerivedLabels(r.Labels, n)
	n.Annotations = r.Annotations
	n.Addresses = r.Addresses
	n.Capacity = r.Capacity
	n.Allocatable = r.Allocatable
	n.Info = r.Info
	n.MaxJobs = r.MaxJobs
	n.KubeletPort = r.KubeletPort
	return n
}

// applyCondition returns a copy of conds in which the condition of e.Type is
// updated, or appended when the node had none. LastTransitionTime moves only
// when the status changes or the condition is new; LastHeartbeatTime always
// moves, and is zero when it is the node's LastHeartbeat (see
// Node.ConditionsHeard).
//
// The slice is as long as it needs to be, no longer: the node's versions
// keep it for as long as they live. Its strings are interned (see
// intern.go), also those of an event made in this process rather than
// decoded, so that the node the unit of work keeps and the one the watch
// hub folds from the log hold one copy of each.
func applyCondition(n Node, e NodeConditionChanged) []Condition {
	e = e.interned().(NodeConditionChanged)
	old := n.Conditions
	for i := range old {
		if old[i].Type != e.Type {
			continue
		}
		conds := slices.Clone(old)
		c := &conds[i]
		if c.Status != e.Status {
			c.LastTransitionTime = e.At
		}
		c.Status, c.Reason, c.Message = e.Status, e.Reason, e.Message
		if !e.Inferred {
			c.LastHeartbeatTime = n.heardAt(e.At)
		}
		return conds
	}
	// A new condition was last heard of with the node's last heartbeat;
	// one herd adds to a node that never reported dates from its
	// registration, as Kubernetes dates it from the node's creation.
	heard := n.LastHeartbeat
	if heard.IsZero() {
		heard = n.RegisteredAt
	}
	conds := make([]Condition, len(old), len(old)+1)
	copy(conds, old)
	return append(conds, Condition{
		Type: e.Type, Status: e.Status, Reason: e.Reason, Message: e.Message,
		LastHeartbeatTime: n.heardAt(heard), LastTransitionTime: e.At,
	})
}

// ownTimes reports whether a condition holds a LastHeartbeatTime of its
// own rather than the node's (zero).
func ownTimes(conds []Condition) bool {
	for _, c := range conds {
		if !c.LastHeartbeatTime.IsZero() {
			return true
		}
	}
	return false
}

// foldParts is n with c's parts folded one after the other, as the events
// c stands for were: one event, one version.
func foldParts(n Node, c Composite) Node {
	for _, p := range c.Parts() {
		n = EvolveNode(n, p)
		n.Version--
	}
	return n
}

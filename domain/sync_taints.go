package domain

import (
	"fmt"
	"slices"
	"time"
)

// SyncConditionTaints makes the node's condition taints follow its
// conditions, as Kubernetes' node lifecycle controller does:
//
//   - Ready Unknown: node.kubernetes.io/unreachable, NoSchedule and NoExecute;
//   - Ready False: node.kubernetes.io/not-ready, NoSchedule and NoExecute;
//   - MemoryPressure, DiskPressure, PIDPressure True: memory-pressure,
//     disk-pressure, pid-pressure, NoSchedule.
//
// Taints whose condition cleared are taken off. Taints under other keys are
// operators' and never touched. Nothing to change records nothing.
type SyncConditionTaints struct {
	// WithholdNoExecute leaves out the NoExecute taints (and takes off
	// those present): when most of the fleet is unreachable together,
	// herd is more likely the one cut off, and evicting everything would
	// turn its own outage into the fleet's.
	WithholdNoExecute bool
	// DeferNoExecute adds no NoExecute taint to a node that carries
	// none: herd's eviction rate has not come to its turn yet
	// (herd serve --node-eviction-rate). A node that carries one keeps
	// one, its not-ready swapped for unreachable or back, as Kubernetes
	// swaps them outside its rate.
	DeferNoExecute bool
	// Only, when not empty, limits the sync to these taints (by key and
	// effect): a reconciler that records each taint's own cause (the
	// condition that turned, the fleet's disruption) syncs the taints of
	// one cause at a time.
	Only []Taint
}

// covers reports whether the command syncs taint t.
func (c SyncConditionTaints) covers(t Taint) bool {
	return len(c.Only) == 0 || slices.ContainsFunc(c.Only, func(o Taint) bool { return o.Key == t.Key && o.Effect == t.Effect })
}

func (c SyncConditionTaints) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	want := desiredConditionTaints(n, withholdsNoExecute(n, c.WithholdNoExecute, c.DeferNoExecute))
	var evs []Event
	for _, t := range n.Taints {
		if conditionTaintKeys[t.Key] && c.covers(t) && !slices.ContainsFunc(want, func(w Taint) bool { return sameTaint(w, t) }) {
			evs = append(evs, NodeUntainted{Key: t.Key, Effect: t.Effect, Cause: "condition cleared", At: now})
		}
	}
	for _, w := range want {
		if c.covers(w) && !n.HasTaint(w.Key, w.Effect) {
			w.TimeAdded = now
			evs = append(evs, NodeTainted{Taint: w, Cause: taintCause(w.Key), At: now})
		}
	}
	return evs, nil
}

// hasConditionNoExecute reports whether n carries the NoExecute taint
// of its Ready condition, unreachable or not-ready.
func hasConditionNoExecute(n Node) bool {
	return n.HasTaint(TaintUnreachable, EffectNoExecute) || n.HasTaint(TaintNotReady, EffectNoExecute)
}

// withholdsNoExecute says whether a sync or a mark of n leaves the
// NoExecute taints out: withheld outright, or deferred on a node that
// carries none.
func withholdsNoExecute(n Node, withhold, deferNew bool) bool {
	return withhold || deferNew && !hasConditionNoExecute(n)
}

// WantsNewNoExecute reports whether n's Ready condition calls for a
// NoExecute taint it does not carry: a taint the eviction rate counts.
func WantsNewNoExecute(n Node) bool {
	s := conditionStatus(n, ConditionReady)
	return (s == ConditionUnknown || s == ConditionFalse) && !hasConditionNoExecute(n)
}

func desiredConditionTaints(n Node, withholdNoExecute bool) []Taint {
	var out []Taint
	both := func(key string) {
		out = append(out, Taint{Key: key, Effect: EffectNoSchedule})
		if !withholdNoExecute {
			out = append(out, Taint{Key: key, Effect: EffectNoExecute})
		}
	}
	switch conditionStatus(n, ConditionReady) {
	case ConditionUnknown:
		both(TaintUnreachable)
	case ConditionFalse:
		both(TaintNotReady)
	}
	for _, p := range []struct {
		cond ConditionType
		key  string
	}{{ConditionMemoryPressure, TaintMemoryPressure}, {ConditionDiskPressure, TaintDiskPressure}, {ConditionPIDPressure, TaintPIDPressure},
		{ConditionNetworkUnavailable, TaintNetworkUnavailable}} {
		if conditionStatus(n, p.cond) == ConditionTrue {
			out = append(out, Taint{Key: p.key, Effect: EffectNoSchedule})
		}
	}
	return out
}

func taintCause(key string) string {
	switch key {
	case TaintUnreachable:
		return "Ready is Unknown"
	case TaintNotReady:
		return "Ready is False"
	case TaintMemoryPressure:
		return "MemoryPressure is True"
	case TaintDiskPressure:
		return "DiskPressure is True"
	case TaintPIDPressure:
		return "PIDPressure is True"
	case TaintNetworkUnavailable:
		return "NetworkUnavailable is True"
	}
	return fmt.Sprintf("taint %s", key)
}

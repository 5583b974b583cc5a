package domain

import "time"

// TaintEffect is what a taint does to pods that do not tolerate it, as in
// Kubernetes.
type TaintEffect string

// The three taint effects.
const (
	// EffectNoSchedule: no new pods are placed on the node.
	EffectNoSchedule TaintEffect = "NoSchedule"
	// EffectPreferNoSchedule: new pods avoid the node when they can.
	EffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	// EffectNoExecute: running pods are evicted too.
	EffectNoExecute TaintEffect = "NoExecute"
)

// The taints herd puts on and takes off nodes as their conditions change,
// under Kubernetes' own keys so that tolerations written for Kubernetes
// work unchanged.
const (
	TaintUnreachable    = "node.kubernetes.io/unreachable"
	TaintNotReady       = "node.kubernetes.io/not-ready"
	TaintMemoryPressure = "node.kubernetes.io/memory-pressure"
	TaintDiskPressure   = "node.kubernetes.io/disk-pressure"
	TaintPIDPressure    = "node.kubernetes.io/pid-pressure"
	// TaintNetworkUnavailable: NetworkUnavailable is True.
	TaintNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

// conditionTaintKeys are the taint keys herd manages from conditions; taints
// under other keys belong to operators and are never touched by the health
// rules.
var conditionTaintKeys = map[string]bool{
	TaintUnreachable: true, TaintNotReady: true,
	TaintMemoryPressure: true, TaintDiskPressure: true, TaintPIDPressure: true,
	TaintNetworkUnavailable: true,
}

// taintConditions is the condition each condition taint follows.
var taintConditions = map[string]ConditionType{
	TaintUnreachable: ConditionReady, TaintNotReady: ConditionReady,
	TaintMemoryPressure: ConditionMemoryPressure, TaintDiskPressure: ConditionDiskPressure,
	TaintPIDPressure: ConditionPIDPressure, TaintNetworkUnavailable: ConditionNetworkUnavailable,
}

// ConditionOfTaint is the condition whose status puts on or takes off
// the taint under key (Ready for unreachable and not-ready); false for a
// taint no condition manages, an operator's.
func ConditionOfTaint(key string) (ConditionType, bool) {
	c, ok := taintConditions[key]
	return c, ok
}

// Taint repels pods that do not tolerate it.
type Taint struct {
	Key    string      `json:"key"`
	Value  string      `json:"value,omitempty"`
	Effect TaintEffect `json:"effect"`
	// TimeAdded is when herd put the taint on; NoExecute eviction counts
	// tolerationSeconds from it.
	TimeAdded time.Time `json:"timeAdded"`
}

// sameTaint reports whether a and b are the same taint: Kubernetes keys a
// node's taints by key and effect.
func sameTaint(a, b Taint) bool { return a.Key == b.Key && a.Effect == b.Effect }

// HasTaint reports whether the node carries a taint with key and effect.
func (n Node) HasTaint(key string, effect TaintEffect) bool {
	for _, t := range n.Taints {
		if t.Key == key && t.Effect == effect {
			return true
		}
	}
	return false
}

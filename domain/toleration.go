package domain

import (
	"fmt"
	"time"
)

// TaintUnschedulable is the key a pod tolerates to be placed on a cordoned
// node, as in Kubernetes.
const TaintUnschedulable = "node.kubernetes.io/unschedulable"

// Tolerates reports whether the toleration matches the taint, by
// Kubernetes' rules: an empty effect matches every effect; an empty key
// with Exists matches every key; Exists ignores the value; Equal (or no
// operator) compares it.
func (t Toleration) Tolerates(taint Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case TolerationOpExists:
		return true
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	}
	return false
}

// ToleratesTaint reports whether any of tols tolerates taint.
func ToleratesTaint(tols []Toleration, taint Taint) bool {
	for _, t := range tols {
		if t.Tolerates(taint) {
			return true
		}
	}
	return false
}

// UntoleratedTaint returns the first of the node's taints with one of the
// given effects that the pod does not tolerate.
func UntoleratedTaint(taints []Taint, tols []Toleration, effects ...TaintEffect) (Taint, bool) {
	for _, taint := range taints {
		for _, eff := range effects {
			if taint.Effect == eff && !ToleratesTaint(tols, taint) {
				return taint, true
			}
		}
	}
	return Taint{}, false
}

// NoExecuteDeadline says when a pod bound to a node with taints must be
// evicted by the NoExecute rules: at once (evict true, at zero) when a
// NoExecute taint is not tolerated; after the smallest tolerationSeconds
// among the tolerations that match, counted from when the taint was added
// or the pod was bound, whichever is later; never (evict false) when every
// matching toleration is unbounded or there is no NoExecute taint.
func NoExecuteDeadline(taints []Taint, tols []Toleration, boundAt time.Time) (at time.Time, evict bool) {
	for _, taint := range taints {
		if taint.Effect != EffectNoExecute {
			continue
		}
		start := taint.TimeAdded
		if boundAt.After(start) {
			start = boundAt
		}
		tolerated := false
		for _, t := range tols {
			if !t.Tolerates(taint) {
				continue
			}
			tolerated = true
			if t.TolerationSeconds == nil {
				continue
			}
			secs := max(*t.TolerationSeconds, 0)
			d := start.Add(time.Duration(secs) * time.Second)
			if !evict || d.Before(at) {
				at, evict = d, true
			}
		}
		if !tolerated {
			return time.Time{}, true
		}
	}
	return at, evict
}

// withDefaultTolerations adds Kubernetes' default tolerations — not-ready
// and unreachable, NoExecute, 300 s — unless the pod already tolerates
// that key for NoExecute, as the DefaultTolerationSeconds admission plugin
// does.
func withDefaultTolerations(tols []Toleration) []Toleration {
	out := cloneSlice(tols)
	for _, key := range []string{TaintNotReady, TaintUnreachable} {
		has := false
		for _, t := range tols {
			if (t.Key == key || t.Key == "") && (t.Effect == EffectNoExecute || t.Effect == "") {
				has = true
				break
			}
		}
		if !has {
			secs := DefaultTolerationSeconds
			out = append(out, Toleration{Key: key, Operator: TolerationOpExists, Effect: EffectNoExecute, TolerationSeconds: &secs})
		}
	}
	return out
}

// tolerationProblems checks tolerations by Kubernetes' validation rules.
func tolerationProblems(tols []Toleration) []FieldError {
	var out []FieldError
	for i, t := range tols {
		path := fmt.Sprintf("spec.tolerations[%d]", i)
		if t.Key != "" {
			for _, msg := range qualifiedNameProblems(t.Key) {
				out = append(out, FieldError{Field: path + ".key", Value: t.Key, Reason: msg})
			}
		}
		switch t.Operator {
		case TolerationOpExists:
			if t.Value != "" {
				out = append(out, FieldError{Field: path + ".operator", Value: t.Value, Reason: "value must be empty when `operator` is 'Exists'"})
			}
		case "", TolerationOpEqual:
			if t.Key == "" {
				out = append(out, FieldError{Field: path + ".operator", Value: t.Operator, Reason: "operator must be Exists when `key` is empty, which means \"match all values and all keys\""})
			}
		default:
			out = append(out, FieldError{Field: path + ".operator", Value: t.Operator, Reason: `supported values: "Equal", "Exists"`})
		}
		switch t.Effect {
		case "", EffectNoSchedule, EffectPreferNoSchedule, EffectNoExecute:
		default:
			out = append(out, FieldError{Field: path + ".effect", Value: string(t.Effect), Reason: `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`})
		}
		if t.TolerationSeconds != nil && t.Effect != EffectNoExecute {
			out = append(out, FieldError{Field: path + ".effect", Value: string(t.Effect), Reason: "effect must be 'NoExecute' when `tolerationSeconds` is set"})
		}
	}
	return out
}

// BoundAt is when p was bound to its node, as the NoExecute rule counts
// it: its PodScheduled condition's turn to True, or its creation for a
// pod created bound.
func (p Pod) BoundAt() time.Time {
	if c, ok := p.Condition(PodConditionScheduled); ok && c.Status == ConditionTrue {
		return c.LastTransitionTime
	}
	return p.CreatedAt
}

// HasNoExecute reports whether any of n's taints evicts pods.
func (n Node) HasNoExecute() bool {
	for _, t := range n.Taints {
		if t.Effect == EffectNoExecute {
			return true
		}
	}
	return false
}

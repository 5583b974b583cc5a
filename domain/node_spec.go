package domain

import (
	"fmt"
	"slices"
	"time"
)

// CauseOperator is the cause recorded on taints an operator put on or took
// off, as opposed to those the health rules manage.
const CauseOperator = "set by an operator"

// SetNodeSchedulable cordons (Unschedulable true) or uncordons a node, as
// `kubectl cordon` and `uncordon` do through spec.unschedulable. Asking for
// what the node already is changes nothing.
type SetNodeSchedulable struct {
	Unschedulable bool
}

func (c SetNodeSchedulable) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	switch {
	case c.Unschedulable == n.Unschedulable:
		return nil, nil
	case c.Unschedulable:
		return []Event{NodeCordoned{At: now}}, nil
	default:
		return []Event{NodeUncordoned{At: now}}, nil
	}
}

// TaintNode puts an operator's taint on a node, replacing one with the
// same key and effect. The same taint again changes nothing.
type TaintNode struct {
	Taint Taint
}

func (c TaintNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if err := invalid("Node", n.Name, taintProblems("spec.taints[0]", c.Taint)); err != nil {
		return nil, err
	}
	for _, t := range n.Taints {
		if sameTaint(t, c.Taint) && t.Value == c.Taint.Value {
			return nil, nil
		}
	}
	t := c.Taint
	t.TimeAdded = now
	return []Event{NodeTainted{Taint: t, Cause: CauseOperator, At: now}}, nil
}

// UntaintNode removes the node's taints with Key, and with Effect when it
// is given (every effect otherwise), as `kubectl taint NAME key[:effect]-`
// does. Removing a taint the node does not have is ErrNotFound.
type UntaintNode struct {
	Key    string
	Effect TaintEffect
}

func (c UntaintNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	var evs []Event
	for _, t := range n.Taints {
		if t.Key == c.Key && (c.Effect == "" || t.Effect == c.Effect) {
			evs = append(evs, NodeUntainted{Key: t.Key, Effect: t.Effect, Cause: CauseOperator, At: now})
		}
	}
	if len(evs) == 0 {
		what := c.Key
		if c.Effect != "" {
			what += ":" + string(c.Effect)
		}
		return nil, fmt.Errorf("taint %q on %s: %w", what, nodeRef(n.Name), ErrNotFound)
	}
	return evs, nil
}

// SetNodeSpec is a PATCH or PUT of a node's spec: the whole list of taints
// and the unschedulable flag. Taints that are gone are removed, new or
// changed ones added (dated now), unchanged ones keep their date.
type SetNodeSpec struct {
	Unschedulable bool
	Taints        []Taint
}

func (c SetNodeSpec) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	var problems []FieldError
	for i, t := range c.Taints {
		path := fmt.Sprintf("spec.taints[%d]", i)
		problems = append(problems, taintProblems(path, t)...)
		for _, u := range c.Taints[:i] {
			if sameTaint(t, u) {
				problems = append(problems, FieldError{Field: path, Value: t.Key + ":" + string(t.Effect), Reason: "taints must be unique by key and effect pair"})
			}
		}
	}
	if err := invalid("Node", n.Name, problems); err != nil {
		return nil, err
	}
	var evs []Event
	for _, t := range n.Taints {
		if !slices.ContainsFunc(c.Taints, func(u Taint) bool { return sameTaint(t, u) }) {
			evs = append(evs, NodeUntainted{Key: t.Key, Effect: t.Effect, Cause: CauseOperator, At: now})
		}
	}
	for _, t := range c.Taints {
		if slices.ContainsFunc(n.Taints, func(u Taint) bool { return sameTaint(t, u) && t.Value == u.Value }) {
			continue
		}
		t.TimeAdded = now
		evs = append(evs, NodeTainted{Taint: t, Cause: CauseOperator, At: now})
	}
	cordon, err := SetNodeSchedulable{Unschedulable: c.Unschedulable}.decideNode(n, now)
	return append(evs, cordon...), err
}

// taintProblems checks one taint by Kubernetes' rules.
func taintProblems(path string, t Taint) []FieldError {
	var errs []FieldError
	if t.Key == "" {
		errs = append(errs, FieldError{Field: path + ".key", Reason: "Required value"})
	}
	for _, msg := range qualifiedNameProblems(t.Key) {
		if t.Key != "" {
			errs = append(errs, FieldError{Field: path + ".key", Value: t.Key, Reason: msg})
		}
	}
	for _, msg := range labelValueProblems(t.Value) {
		errs = append(errs, FieldError{Field: path + ".value", Value: t.Value, Reason: msg})
	}
	switch t.Effect {
	case EffectNoSchedule, EffectPreferNoSchedule, EffectNoExecute:
	case "":
		errs = append(errs, FieldError{Field: path + ".effect", Reason: "Required value"})
	default:
		errs = append(errs, FieldError{Field: path + ".effect", Value: string(t.Effect), Reason: `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`})
	}
	return errs
}

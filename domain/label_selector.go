package domain

import (
	"fmt"
	"maps"
	"slices"
)

// LabelSelector selects objects by their labels, as Kubernetes'
// metav1.LabelSelector does: every MatchLabels pair and every expression
// must hold. An empty selector selects everything; a workload refuses one.
type LabelSelector struct {
	MatchLabels      map[string]string     `json:"matchLabels,omitempty"`
	MatchExpressions []SelectorRequirement `json:"matchExpressions,omitempty"`
}

// SelectorRequirement is one expression of a selector: Key In, NotIn,
// Exists or DoesNotExist, with Values for In and NotIn.
type SelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// The operators of a selector's expressions, as Kubernetes spells them.
const (
	SelectorIn           = "In"
	SelectorNotIn        = "NotIn"
	SelectorExists       = "Exists"
	SelectorDoesNotExist = "DoesNotExist"
)

// Empty reports whether the selector says nothing, and so selects every
// object.
func (s LabelSelector) Empty() bool { return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0 }

// Matches reports whether labels satisfy every part of the selector.
func (s LabelSelector) Matches(labels map[string]string) bool {
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		v, ok := labels[r.Key]
		switch r.Operator {
		case SelectorIn:
			if !ok || !slices.Contains(r.Values, v) {
				return false
			}
		case SelectorNotIn:
			if ok && slices.Contains(r.Values, v) {
				return false
			}
		case SelectorExists:
			if !ok {
				return false
			}
		case SelectorDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// problems checks the selector as kube-apiserver checks a workload's: not
// empty, label keys and values valid, operators known, values given to In
// and NotIn only.
func (s LabelSelector) problems(field string) []FieldError {
	var errs []FieldError
	if s.Empty() {
		return append(errs, FieldError{Field: field, Reason: "Required value: an empty selector would select every pod of the namespace"})
	}
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		for _, msg := range qualifiedNameProblems(k) {
			errs = append(errs, FieldError{Field: field + ".matchLabels", Value: k, Reason: msg})
		}
		for _, msg := range labelValueProblems(s.MatchLabels[k]) {
			errs = append(errs, FieldError{Field: field + ".matchLabels", Value: s.MatchLabels[k], Reason: msg})
		}
	}
	for i, r := range s.MatchExpressions {
		path := fmt.Sprintf("%s.matchExpressions[%d]", field, i)
		for _, msg := range qualifiedNameProblems(r.Key) {
			errs = append(errs, FieldError{Field: path + ".key", Value: r.Key, Reason: msg})
		}
		switch r.Operator {
		case SelectorIn, SelectorNotIn:
			if len(r.Values) == 0 {
				errs = append(errs, FieldError{Field: path + ".values", Reason: "Required value: must be specified when `operator` is 'In' or 'NotIn'"})
			}
		case SelectorExists, SelectorDoesNotExist:
			if len(r.Values) > 0 {
				errs = append(errs, FieldError{Field: path + ".values", Reason: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"})
			}
		default:
			errs = append(errs, FieldError{Field: path + ".operator", Value: r.Operator, Reason: `Unsupported value: supported values: "In", "NotIn", "Exists", "DoesNotExist"`})
		}
	}
	return errs
}

package domain

import (
	"fmt"
	"maps"
	"slices"
)

// LabelKind is the node label that carries the node's kind. herd derives it
// and stores it with the node's own labels, so that everything that reads
// labels — list and watch selectors, the scheduler's nodeSelector — sees
// the same set. An API client names a new node's kind with it; afterwards
// it can only repeat it.
const LabelKind = "herd.dev/kind"

// derivedLabels are the labels herd computes from a node's state, by key.
// They are reserved: a client may send one only with the value herd
// derives. Other herd.dev/ labels (herd.dev/runtime, herd.dev/demo) are a
// client's own.
var derivedLabels = map[string]func(Node) string{
	LabelKind: func(n Node) string { return string(n.Kind) },
}

// derivedLabelKeys are derivedLabels' keys in order, for checks that
// report in key order.
var derivedLabelKeys = slices.Sorted(maps.Keys(derivedLabels))

// withDerivedLabels returns a copy of labels with every derived label set
// from n, and every key and value interned (see intern.go): the node keeps
// one copy of the strings a fleet repeats, whether its labels came from
// the log or from a request. It runs in EvolveNode, so a log written
// before herd stored them replays to the same labels as a new one. labels
// is not changed.
func withDerivedLabels(labels map[string]string, n Node) map[string]string {
	out := make(map[string]string, len(labels)+len(derivedLabels))
	for k, v := range labels {
		out[intern(k)] = intern(v)
	}
	for k, derive := range derivedLabels {
		out[k] = intern(derive(n))
	}
	return out
}

// withoutDerivedLabels returns labels without the derived ones, nil when
// nothing is left: what an event records, since EvolveNode derives the rest.
func withoutDerivedLabels(labels map[string]string) map[string]string {
	var out map[string]string
	for k, v := range labels {
		if _, ok := derivedLabels[k]; ok {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// derivedLabelProblems names every derived label in labels whose value is
// not the one herd derives for n, in key order: a client may echo a node's
// labels back, but not change what herd computes.
func derivedLabelProblems(labels map[string]string, n Node) []FieldError {
	var errs []FieldError
	for _, k := range derivedLabelKeys {
		v, ok := labels[k]
		if want := derivedLabels[k](n); ok && v != want {
			errs = append(errs, FieldError{
				Field: "metadata.labels[" + k + "]", Value: v,
				Reason: fmt.Sprintf("herd sets this label itself (to %q here) and it cannot be changed", want),
			})
		}
	}
	return errs
}

// WithDerivedLabels returns n with its derived labels set when one is
// missing or stale, n itself otherwise. EvolveNode ends with it, so a node
// row stored before herd stored them gains them with the node's next
// event, of any type; the views upgrade such rows with it when herd
// starts, so that they equal a rebuild of the log at once. The check is a
// map lookup, cheap enough for every heartbeat of a replay.
func WithDerivedLabels(n Node) Node {
	if n.Kind == "" {
		return n
	}
	for k, derive := range derivedLabels {
		if v, ok := n.Labels[k]; !ok || v != derive(n) {
			n.Labels = withDerivedLabels(n.Labels, n)
			return n
		}
	}
	return n
}

package domain

import (
	"maps"
	"time"
)

// SetNodeLabels replaces a node's labels and annotations with complete new
// sets, as a Kubernetes update or patch of the Node's metadata ends up
// doing. Keys and values follow Kubernetes' rules: a label key or an
// annotation key is a qualified name (an optional DNS subdomain prefix and
// '/', then up to 63 characters of [A-Za-z0-9-_.] starting and ending
// alphanumeric); a label value is empty or up to 63 such characters.
//
// herd's derived labels (herd.dev/kind) stay whatever the new set says:
// a set may repeat them, and one that gives another value is refused,
// naming the label.
//
// It records NodeLabelsChanged, or nothing when both sets are what the node
// already has (an empty set and no set are the same).
type SetNodeLabels struct {
	// Labels is the complete new set of labels.
	Labels map[string]string
	// Annotations is the complete new set of annotations.
	Annotations map[string]string
}

func (c SetNodeLabels) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	problems := append(derivedLabelProblems(c.Labels, n), metadataProblems(c.Labels, c.Annotations)...)
	if err := invalid("Node", n.Name, problems); err != nil {
		return nil, err
	}
	// maps.Equal treats nil and empty alike, as JSON will.
	if maps.Equal(n.Labels, withDerivedLabels(c.Labels, n)) && maps.Equal(n.Annotations, c.Annotations) {
		return nil, nil
	}
	return []Event{NodeLabelsChanged{
		Labels:      withoutDerivedLabels(c.Labels),
		Annotations: cloneStrings(c.Annotations),
		At:          now,
	}}, nil
}

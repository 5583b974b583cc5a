package domain

import (
	"bytes"
	"maps"
	"slices"
	"time"
)

// UpdateConfigMap replaces a ConfigMap's content, as a Kubernetes PUT
// (`kubectl replace`) does. With ResourceVersion set, the update applies
// only to that version of the ConfigMap and fails with ErrConflict when
// someone else wrote it in between: optimistic concurrency, as in
// Kubernetes.
//
// It records ConfigMapUpdated with the complete new content, or nothing
// when the content is what the ConfigMap already holds. An immutable
// ConfigMap keeps its data and its immutability; its labels and
// annotations may still change.
type UpdateConfigMap struct {
	Content ConfigMapContent
	// ResourceVersion is the version the update was based on; 0 updates
	// whatever is there.
	ResourceVersion int64
}

func (c UpdateConfigMap) decideConfigMap(cm ConfigMap, now time.Time) ([]Event, error) {
	if err := requireConfigMap(cm); err != nil {
		return nil, err
	}
	if err := checkResourceVersion("configmaps", cm.Name, cm.ResourceVersion, c.ResourceVersion); err != nil {
		return nil, err
	}
	errs := configMapContentProblems(c.Content)
	errs = append(errs, immutabilityProblems(cm.ConfigMapContent, c.Content)...)
	if err := invalid("ConfigMap", cm.Name, errs); err != nil {
		return nil, err
	}
	changed := contentChanges(cm.ConfigMapContent, c.Content)
	if len(changed) == 0 {
		return nil, nil
	}
	return []Event{ConfigMapUpdated{ConfigMapContent: c.Content.clone(), Changed: changed, At: now}}, nil
}

// immutabilityProblems enforces Kubernetes' rules for immutable
// ConfigMaps: the flag cannot be cleared and the data cannot change.
func immutabilityProblems(old, next ConfigMapContent) []FieldError {
	if !old.Immutable {
		return nil
	}
	var errs []FieldError
	if !next.Immutable {
		errs = append(errs, FieldError{Field: "immutable", Reason: "field is immutable when `immutable` is set"})
	}
	if !maps.Equal(old.Data, next.Data) {
		errs = append(errs, FieldError{Field: "data", Reason: "field is immutable when `immutable` is set"})
	}
	if !maps.EqualFunc(old.BinaryData, next.BinaryData, bytes.Equal) {
		errs = append(errs, FieldError{Field: "binaryData", Reason: "field is immutable when `immutable` is set"})
	}
	return errs
}

// contentChanges lists the paths whose values differ between old and
// next, sorted.
func contentChanges(old, next ConfigMapContent) []string {
	var out []string
	diff := func(prefix string, a, b map[string]string) {
		for k := range keysOfBoth(a, b) {
			va, ina := a[k]
			vb, inb := b[k]
			if ina != inb || va != vb {
				out = append(out, prefix+k)
			}
		}
	}
	diff("metadata.labels.", old.Labels, next.Labels)
	diff("metadata.annotations.", old.Annotations, next.Annotations)
	diff("data.", old.Data, next.Data)
	for k := range keysOfBoth(old.BinaryData, next.BinaryData) {
		va, ina := old.BinaryData[k]
		vb, inb := next.BinaryData[k]
		if ina != inb || !bytes.Equal(va, vb) {
			out = append(out, "binaryData."+k)
		}
	}
	if old.Immutable != next.Immutable {
		out = append(out, "immutable")
	}
	if !slices.Equal(old.Owners, next.Owners) {
		out = append(out, "metadata.ownerReferences")
	}
	slices.Sort(out)
	return out
}

// keysOfBoth yields every key of a and of b once.
func keysOfBoth[V any](a, b map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
		for k := range b {
			if _, dup := a[k]; dup {
				continue
			}
			if !yield(k) {
				return
			}
		}
	}
}

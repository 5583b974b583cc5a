package domain

import "time"

// PatchConfigMap changes a ConfigMap relative to what it holds now, as a
// Kubernetes PATCH does. Apply computes the update from the current
// ConfigMap — the API applies a JSON merge, strategic merge or JSON patch
// there — inside the same unit of work, so that no other write can slip in
// between reading the ConfigMap and writing it back. Apply gets a copy and
// must be pure.
//
// The update Apply returns is then decided as UpdateConfigMap is: a
// ResourceVersion it carries (a patch may name one) is a precondition, the
// immutability rules hold, and a patch that changes nothing records
// nothing.
type PatchConfigMap struct {
	Apply func(current ConfigMap) (UpdateConfigMap, error)
}

func (c PatchConfigMap) decideConfigMap(cm ConfigMap, now time.Time) ([]Event, error) {
	if err := requireConfigMap(cm); err != nil {
		return nil, err
	}
	if c.Apply == nil {
		return nil, invalid("ConfigMap", cm.Name, []FieldError{{Field: "patch", Reason: "required"}})
	}
	update, err := c.Apply(cm.Clone())
	if err != nil {
		return nil, err
	}
	return update.decideConfigMap(cm, now)
}

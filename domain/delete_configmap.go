package domain

import "time"

// DeleteConfigMap removes a ConfigMap, as `kubectl delete configmap` does.
// With ResourceVersion set it deletes only that version (ErrConflict
// otherwise). It records ConfigMapDeleted; the view keeps a tombstone so
// that a later ConfigMap of the same name continues the stream. Deleting
// one that does not exist fails with ErrNotFound.
type DeleteConfigMap struct {
	ResourceVersion int64
}

func (c DeleteConfigMap) decideConfigMap(cm ConfigMap, now time.Time) ([]Event, error) {
	if err := requireConfigMap(cm); err != nil {
		return nil, err
	}
	if err := checkResourceVersion("configmaps", cm.Name, cm.ResourceVersion, c.ResourceVersion); err != nil {
		return nil, err
	}
	return []Event{ConfigMapDeleted{At: now}}, nil
}

package domain

import "time"

// CreateConfigMap creates a ConfigMap, as `kubectl create configmap` does.
// It records ConfigMapCreated, or fails with ErrAlreadyExists when the
// name is taken in the namespace. A deleted ConfigMap's name is free again:
// the new one continues the old stream and starts from nothing.
type CreateConfigMap struct {
	Namespace string
	Name      string
	UID       string
	Content   ConfigMapContent
}

func (c CreateConfigMap) decideConfigMap(cm ConfigMap, now time.Time) ([]Event, error) {
	errs := configMapNameProblems(c.Namespace, c.Name)
	errs = append(errs, configMapContentProblems(c.Content)...)
	if err := invalid("ConfigMap", c.Name, errs); err != nil {
		return nil, err
	}
	if cm.Exists() {
		return nil, configMapExists(c.Name)
	}
	return []Event{ConfigMapCreated{
		Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		ConfigMapContent: c.Content.clone(), At: now,
	}}, nil
}

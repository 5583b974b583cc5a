package projections

import (
	"context"

	"herd/domain"
	"herd/events"
)

// ConfigMapView answers queries about ConfigMaps from the configmap view.
// Watches build on it: Get and List give the state, the log gives the
// changes after a list's resourceVersion.
type ConfigMapView struct {
	db *viewDB
}

// NewConfigMapView returns a ConfigMapView reading the views beside log.
func NewConfigMapView(log events.Log) *ConfigMapView {
	return &ConfigMapView{db: newViewDB(log)}
}

// Get returns the ConfigMap, or domain.ErrNotFound when it does not exist
// or was deleted.
func (v *ConfigMapView) Get(ctx context.Context, namespace, name string) (domain.ConfigMap, error) {
	return configMaps.get(ctx, v.db, namespace, name)
}

// List returns the ConfigMaps of a namespace — of every namespace when
// namespace is "" — ordered by namespace and name, with the log head at
// the moment of reading (the list's resourceVersion), from one statement.
func (v *ConfigMapView) List(ctx context.Context, namespace string) ([]domain.ConfigMap, int64, error) {
	return configMaps.list(ctx, v.db, namespace)
}

package projections

import (
	"context"
	"database/sql"
	"fmt"

	"herd/domain"
)

// ConfigMapView answers queries about ConfigMaps from the configmap view.
// Watches build on it: Get and List give the state, the log gives the
// changes after a list's resourceVersion.
type ConfigMapView struct {
	db *sql.DB
}

// NewConfigMapView returns a ConfigMapView reading db.
func NewConfigMapView(db *sql.DB) *ConfigMapView { return &ConfigMapView{db: db} }

// Get returns the ConfigMap, or domain.ErrNotFound when it does not exist
// or was deleted.
func (v *ConfigMapView) Get(ctx context.Context, namespace, name string) (domain.ConfigMap, error) {
	cm, err := loadConfigMap(ctx, v.db, namespace, name)
	if err == nil && cm.Deleted {
		return domain.ConfigMap{}, fmt.Errorf("configmap %q: %w", name, domain.ErrNotFound)
	}
	return cm, err
}

// List returns the ConfigMaps of a namespace — of every namespace when
// namespace is "" — ordered by namespace and name, with the log head at
// the moment of reading (the list's resourceVersion), from one statement.
func (v *ConfigMapView) List(ctx context.Context, namespace string) ([]domain.ConfigMap, int64, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT c.data, h.head FROM (SELECT COALESCE(MAX(position), 0) AS head FROM events) h
LEFT JOIN configmaps c ON c.deleted = 0 AND (? = '' OR c.namespace = ?) ORDER BY c.namespace, c.name`, namespace, namespace)
	if err != nil {
		return nil, 0, fmt.Errorf("list configmaps: %w", err)
	}
	defer rows.Close()
	var (
		out  []domain.ConfigMap
		head int64
	)
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data, &head); err != nil {
			return nil, 0, fmt.Errorf("list configmaps: %w", err)
		}
		if data == nil {
			continue
		}
		cm, err := unmarshalConfigMap(data)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, cm)
	}
	return out, head, rows.Err()
}

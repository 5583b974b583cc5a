package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// configMaps describes the ConfigMap: its row in configmaps.
var configMaps = describe(&aggregate[domain.ConfigMap]{
	of: domain.ConfigMapAggregate,
	fresh: func(key string) domain.ConfigMap {
		namespace, name, _ := strings.Cut(key, "/")
		return domain.ConfigMap{Namespace: namespace, Name: name}
	},
	load: func(ctx context.Context, q events.Querier, key string) (domain.ConfigMap, error) {
		namespace, name, _ := strings.Cut(key, "/")
		return loadConfigMap(ctx, q, namespace, name)
	},
	version:  func(cm domain.ConfigMap) int64 { return cm.Version },
	position: func(cm domain.ConfigMap) int64 { return cm.ResourceVersion },
	evolve: func(cm domain.ConfigMap, rec events.Record, ev domain.Event) domain.ConfigMap {
		cm = domain.EvolveConfigMap(cm, ev)
		cm.ResourceVersion = rec.Position
		return cm
	},
	upsert: func(ctx context.Context, x execer, _ string, cm domain.ConfigMap, _ int64) error {
		data, err := json.Marshal(cm)
		if err != nil {
			return fmt.Errorf("encode configmap %s/%s: %w", cm.Namespace, cm.Name, err)
		}
		if _, err := x.ExecContext(ctx, upsertConfigMapSQL, cm.Namespace, cm.Name, cm.Deleted, cm.Version, cm.ResourceVersion, data); err != nil {
			return fmt.Errorf("configmap view %s/%s: %w", cm.Namespace, cm.Name, err)
		}
		return nil
	},
	tables: []viewTable{{"configmaps", "namespace, name"}},
})

var _ domain.ConfigMapRepository = (*Writer)(nil)

// UpdateConfigMap implements domain.ConfigMapRepository.
func (w *Writer) UpdateConfigMap(ctx context.Context, namespace, name string, update func(domain.ConfigMap) ([]domain.Event, error)) (domain.ConfigMap, error) {
	return configMaps.update(ctx, w, namespace+"/"+name, update)
}

const upsertConfigMapSQL = `INSERT INTO configmaps (namespace, name, deleted, version, resource_version, data) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, name) DO UPDATE SET deleted = excluded.deleted, version = excluded.version,
  resource_version = excluded.resource_version, data = excluded.data`

// unmarshalConfigMap rebuilds a ConfigMap from its stored row.
func unmarshalConfigMap(data []byte) (domain.ConfigMap, error) {
	var cm domain.ConfigMap
	if err := json.Unmarshal(data, &cm); err != nil {
		return domain.ConfigMap{}, fmt.Errorf("decode configmap row: %w", err)
	}
	return cm, nil
}

// loadConfigMap reads a ConfigMap's row, tombstones included, or
// domain.ErrNotFound.
func loadConfigMap(ctx context.Context, q events.Querier, namespace, name string) (domain.ConfigMap, error) {
	data, err := rowData(ctx, q, fmt.Sprintf("configmap %q", name), `SELECT data FROM configmaps WHERE namespace = ? AND name = ?`, namespace, name)
	if err != nil {
		return domain.ConfigMap{}, err
	}
	return unmarshalConfigMap(data)
}

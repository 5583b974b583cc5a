package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"herd/domain"
	"herd/events"
)

var _ domain.ConfigMapRepository = (*Writer)(nil)

// UpdateConfigMap implements domain.ConfigMapRepository.
func (w *Writer) UpdateConfigMap(ctx context.Context, namespace, name string, update func(domain.ConfigMap) ([]domain.Event, error)) (domain.ConfigMap, error) {
	var out domain.ConfigMap
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		cm, err := loadConfigMap(ctx, tx, namespace, name)
		if errors.Is(err, domain.ErrNotFound) {
			cm, err = domain.ConfigMap{Namespace: namespace, Name: name}, nil
		}
		if err != nil {
			return err
		}
		evs, err := update(cm)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			out = cm
			return nil
		}
		recs, stored, err := w.appendStored(ctx, tx, domain.ConfigMapStream(namespace, name), cm.Version, evs)
		if err != nil {
			return err
		}
		for i, rec := range recs {
			cm = applyConfigMap(cm, rec, stored[i])
		}
		out = cm
		return storeConfigMap(ctx, tx, cm)
	})
	return out, err
}

// applyConfigMap folds one logged ConfigMap event, as applyNode does for
// nodes; the inline view and the rebuild share it.
func applyConfigMap(cm domain.ConfigMap, rec events.Record, ev domain.Event) domain.ConfigMap {
	cm = domain.EvolveConfigMap(cm, ev)
	cm.ResourceVersion = rec.Position
	return cm
}

const upsertConfigMapSQL = `INSERT INTO configmaps (namespace, name, deleted, version, resource_version, data) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, name) DO UPDATE SET deleted = excluded.deleted, version = excluded.version,
  resource_version = excluded.resource_version, data = excluded.data`

func storeConfigMap(ctx context.Context, tx execer, cm domain.ConfigMap) error {
	data, err := json.Marshal(cm)
	if err != nil {
		return fmt.Errorf("encode configmap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	if _, err := tx.ExecContext(ctx, upsertConfigMapSQL, cm.Namespace, cm.Name, cm.Deleted, cm.Version, cm.ResourceVersion, data); err != nil {
		return fmt.Errorf("configmap view %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	return nil
}

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
	rows, err := q.QueryContext(ctx, `SELECT data FROM configmaps WHERE namespace = ? AND name = ?`, namespace, name)
	if err != nil {
		return domain.ConfigMap{}, fmt.Errorf("load configmap %s/%s: %w", namespace, name, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return domain.ConfigMap{}, fmt.Errorf("load configmap %s/%s: %w", namespace, name, err)
		}
		return domain.ConfigMap{}, fmt.Errorf("configmap %q: %w", name, domain.ErrNotFound)
	}
	var data []byte
	if err := rows.Scan(&data); err != nil {
		return domain.ConfigMap{}, fmt.Errorf("load configmap %s/%s: %w", namespace, name, err)
	}
	return unmarshalConfigMap(data)
}

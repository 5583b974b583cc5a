package projections

import (
	"context"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// FoldConfigMap folds one logged event of a ConfigMap's stream into the
// ConfigMap, as the inline view does. Watches and consistent lists use it
// to rebuild a ConfigMap as it stood at any log position. A ConfigMap
// seen for the first time is the zero ConfigMap.
func FoldConfigMap(cm domain.ConfigMap, rec events.Record) (domain.ConfigMap, error) {
	rest, ok := strings.CutPrefix(rec.Stream, "configmap/")
	namespace, name, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		return cm, fmt.Errorf("fold configmap: %s@%d is not a ConfigMap's stream", rec.Stream, rec.Version)
	}
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return cm, fmt.Errorf("fold %s@%d: %w", rec.Stream, rec.Version, err)
	}
	if cm.Name == "" {
		cm.Namespace, cm.Name = namespace, name
	}
	return applyConfigMap(cm, rec, ev), nil
}

// Rows returns up to limit ConfigMaps whose keys ("namespace/name") sort
// after after, in key order, deleted ones (tombstones) included, and the
// log head at the moment of reading; limit 0 or less means all of them.
func (v *ConfigMapView) Rows(ctx context.Context, after string, limit int) ([]domain.ConfigMap, int64, error) {
	return viewRows(ctx, v.db, "configmap", unmarshalConfigMap, namespacedRowsQuery("configmaps"), namespacedRowsArgs(after, limit)...)
}

package projections

import (
	"context"

	"herd/domain"
	"herd/events"
)

// FoldConfigMap folds one logged event of a ConfigMap's stream into the
// ConfigMap, as the inline view does. Watches and consistent lists use it
// to rebuild a ConfigMap as it stood at any log position. A ConfigMap
// seen for the first time is the zero ConfigMap.
func FoldConfigMap(cm domain.ConfigMap, rec events.Record) (domain.ConfigMap, error) {
	return configMaps.fold(cm, rec)
}

// Rows returns up to limit ConfigMaps whose keys ("namespace/name") sort
// after after, in key order, deleted ones (tombstones) included, and the
// log head at the moment of reading; limit 0 or less means all of them.
func (v *ConfigMapView) Rows(ctx context.Context, after string, limit int) ([]domain.ConfigMap, int64, error) {
	return configMaps.rows(ctx, v.db, after, limit)
}

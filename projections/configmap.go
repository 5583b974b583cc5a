package projections

import (
	"herd/domain"
	"herd/events"
)

// configMaps describes the ConfigMap: its row in configmaps.
var configMaps = describeJSONRows(domain.ConfigMapAggregate, "configmaps", "configmap",
	func(namespace, name string) domain.ConfigMap {
		return domain.ConfigMap{ObjectMeta: domain.ObjectMeta{Namespace: namespace, Name: name}}
	},
	domain.EvolveConfigMap,
	func(cm domain.ConfigMap) jsonRow {
		return jsonRow{namespace: cm.Namespace, name: cm.Name, deleted: cm.Deleted, version: cm.Version, position: cm.ResourceVersion}
	},
	func(cm domain.ConfigMap, position int64) domain.ConfigMap { cm.ResourceVersion = position; return cm },
)

// FoldConfigMap folds one logged event of a ConfigMap's stream into the
// ConfigMap, as the inline view does. Watches and consistent lists use it
// to rebuild a ConfigMap as it stood at any log position. A ConfigMap
// seen for the first time is the zero ConfigMap.
func FoldConfigMap(cm domain.ConfigMap, rec events.Record) (domain.ConfigMap, error) {
	return configMaps.fold(cm, rec)
}

// ConfigMapView answers queries about ConfigMaps from the configmap view:
// the API's reads, the state watches start from, the namespace
// reconciler's and the garbage collector's.
type ConfigMapView = JSONView[domain.ConfigMap]

// NewConfigMapView returns a ConfigMapView reading the views beside log.
func NewConfigMapView(log events.Log) *ConfigMapView { return newJSONView(log, configMaps) }

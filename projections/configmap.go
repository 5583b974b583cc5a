package projections

import (
	"herd/domain"
	"herd/events"
)

// configMaps describes the ConfigMap: its row in configmaps.
var configMaps = describeObjectRows(domain.ConfigMapAggregate, "configmaps", "configmap",
	domain.EvolveConfigMap)

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

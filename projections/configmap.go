package projections

import (
	"herd/domain"
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

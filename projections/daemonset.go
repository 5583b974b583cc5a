package projections

import (
	"herd/domain"
	"herd/events"
)

// daemonSets describes the DaemonSet: its row in daemonsets.
var daemonSets = describeJSONRows(domain.DaemonSetAggregate, "daemonsets", "daemonsets.apps",
	func(namespace, name string) domain.DaemonSet {
		return domain.DaemonSet{Object: domain.Object[domain.DaemonSetSpec, domain.DaemonSetStatus]{ObjectMeta: domain.ObjectMeta{Namespace: namespace, Name: name}}}
	},
	domain.EvolveDaemonSet,
	func(ds domain.DaemonSet) jsonRow {
		return jsonRow{namespace: ds.Namespace, name: ds.Name, deleted: ds.Deleted, version: ds.Version, position: ds.ResourceVersion}
	},
	func(ds domain.DaemonSet, position int64) domain.DaemonSet { ds.ResourceVersion = position; return ds },
)

// FoldDaemonSet folds one logged event of a DaemonSet's stream into the
// DaemonSet, as the inline view does: watches and consistent lists use
// it to rebuild a DaemonSet as it stood at any log position.
func FoldDaemonSet(ds domain.DaemonSet, rec events.Record) (domain.DaemonSet, error) {
	return daemonSets.fold(ds, rec)
}

package projections

import (
	"herd/domain"
	"herd/events"
)

// replicaSets describes the ReplicaSet: its row in replicasets.
var replicaSets = describeJSONRows(domain.ReplicaSetAggregate, "replicasets", "replicasets.apps",
	func(namespace, name string) domain.ReplicaSet {
		return domain.ReplicaSet{ObjectMeta: domain.ObjectMeta{Namespace: namespace, Name: name}}
	},
	domain.EvolveReplicaSet,
	func(rs domain.ReplicaSet) jsonRow {
		return jsonRow{namespace: rs.Namespace, name: rs.Name, deleted: rs.Deleted, version: rs.Version, position: rs.ResourceVersion}
	},
	func(rs domain.ReplicaSet, position int64) domain.ReplicaSet { rs.ResourceVersion = position; return rs },
).withController(func(rs domain.ReplicaSet) string { return ControllerOf(rs.Owners) })

// FoldReplicaSet folds one logged event of a ReplicaSet's stream into the
// ReplicaSet, as the inline view does: watches and consistent lists use
// it to rebuild a ReplicaSet as it stood at any log position.
func FoldReplicaSet(rs domain.ReplicaSet, rec events.Record) (domain.ReplicaSet, error) {
	return replicaSets.fold(rs, rec)
}

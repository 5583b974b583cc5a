package projections

import (
	"herd/domain"
	"herd/events"
)

// replicaSets describes the ReplicaSet: its row in replicasets.
var replicaSets = describeObjectRows(domain.ReplicaSetAggregate, "replicasets", "replicasets.apps",
	domain.EvolveReplicaSet).withController(func(rs domain.ReplicaSet) string { return ControllerOf(rs.Owners) })

// FoldReplicaSet folds one logged event of a ReplicaSet's stream into the
// ReplicaSet, as the inline view does: watches and consistent lists use
// it to rebuild a ReplicaSet as it stood at any log position.
func FoldReplicaSet(rs domain.ReplicaSet, rec events.Record) (domain.ReplicaSet, error) {
	return replicaSets.fold(rs, rec)
}

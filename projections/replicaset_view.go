package projections

import (
	"herd/domain"
	"herd/events"
)

// ReplicaSetView answers queries about ReplicaSets from the replicaset
// view: the API's reads, the state watches start from, and the
// reconcilers'.
type ReplicaSetView = JSONView[domain.ReplicaSet]

// NewReplicaSetView returns a ReplicaSetView reading the views beside log.
func NewReplicaSetView(log events.Log) *ReplicaSetView { return newJSONView(log, replicaSets) }

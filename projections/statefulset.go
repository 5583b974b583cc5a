package projections

import (
	"herd/domain"
	"herd/events"
)

// statefulSets describes the StatefulSet: its row in statefulsets.
var statefulSets = describeObjectRows(domain.StatefulSetAggregate, "statefulsets", "statefulsets.apps",
	domain.EvolveObject[domain.StatefulSetSpec, domain.StatefulSetStatus])

// FoldStatefulSet folds one logged event of a StatefulSet's stream into the
// StatefulSet, as the inline view does: watches and consistent lists use it
// to rebuild a StatefulSet as it stood at any log position.
func FoldStatefulSet(s domain.StatefulSet, rec events.Record) (domain.StatefulSet, error) {
	return statefulSets.fold(s, rec)
}

// StatefulSetView answers queries about StatefulSets: the API's reads and the
// statefulset reconciler's.
type StatefulSetView = JSONView[domain.StatefulSet]

// NewStatefulSetView returns a StatefulSetView reading the views beside log.
func NewStatefulSetView(log events.Log) *StatefulSetView { return newJSONView(log, statefulSets) }

package projections

import (
	"herd/domain"
	"herd/events"
)

// controllerRevisions describes the ControllerRevision: its row in
// controllerrevisions.
var controllerRevisions = describeObjectRows(domain.ControllerRevisionAggregate, "controllerrevisions", "controllerrevisions.apps",
	domain.EvolveControllerRevision)

// FoldControllerRevision folds one logged event of a ControllerRevision's
// stream into the revision, as the inline view does: watches and
// consistent lists use it to rebuild a revision as it stood at any log
// position.
func FoldControllerRevision(r domain.ControllerRevision, rec events.Record) (domain.ControllerRevision, error) {
	return controllerRevisions.fold(r, rec)
}

// ControllerRevisionView answers queries about ControllerRevisions: the
// API's reads and the statefulset reconciler's, which keeps them.
type ControllerRevisionView = JSONView[domain.ControllerRevision]

// NewControllerRevisionView returns a ControllerRevisionView reading the
// views beside log.
func NewControllerRevisionView(log events.Log) *ControllerRevisionView {
	return newJSONView(log, controllerRevisions)
}

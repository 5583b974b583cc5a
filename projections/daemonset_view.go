package projections

import (
	"herd/domain"
	"herd/events"
)

// DaemonSetView answers queries about DaemonSets: the API's reads, the
// state watches start from, and the DaemonSet reconciler's.
type DaemonSetView = JSONView[domain.DaemonSet]

// NewDaemonSetView returns a DaemonSetView reading the views beside log.
func NewDaemonSetView(log events.Log) *DaemonSetView { return newJSONView(log, daemonSets) }

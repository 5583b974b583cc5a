package daemonset

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/history"
)

// Params are what the reconciler is built from: the small interfaces it
// reads and writes through, as the app provides them.
type Params struct {
	fx.In

	DaemonSets  Reader
	Nodes       NodeLister
	Pods        PodLister
	PodCommands domain.Executor[domain.Pod, domain.PodCommand]
	PodBatch    domain.BatchExecutor[domain.Pod, domain.PodCommand]
	DSCommands  domain.Executor[domain.DaemonSet, domain.DaemonSetCommand]
	// Revisions, RevCommands and RevisionData keep the DaemonSets'
	// ControllerRevisions; without them the reconciler keeps none.
	Revisions    history.Reader                                                               `optional:"true"`
	RevCommands  domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand] `optional:"true"`
	RevisionData RevisionData                                                                 `optional:"true"`
	Clock        clock.Clock
	Logger       *zap.Logger
}

// podCommands is the pods' Executor and BatchExecutor, which the app
// provides apart, as one PodCommands.
type podCommands struct {
	domain.Executor[domain.Pod, domain.PodCommand]
	domain.BatchExecutor[domain.Pod, domain.PodCommand]
}

// Module adds the DaemonSet reconciler to the reconcilers' value group,
// under the name "daemonset" that --reconcilers switches, with the Config
// the app supplies (DefaultConfig when none).
var Module = reconcilers.Configured("daemonset", DefaultConfig, func(cfg Config, p Params) (*Reconciler, error) {
	r, err := New(cfg, p.DaemonSets, p.Nodes, p.Pods, podCommands{p.PodCommands, p.PodBatch}, p.DSCommands, p.Clock, p.Logger)
	if err != nil || p.Revisions == nil || p.RevCommands == nil || p.RevisionData == nil {
		return r, err
	}
	return r.WithRevisions(p.Revisions, p.RevCommands, p.RevisionData), nil
})

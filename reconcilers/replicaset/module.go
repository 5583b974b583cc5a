package replicaset

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// Params are what the reconciler is built from: the small interfaces it
// reads and writes through, as the app provides them.
type Params struct {
	fx.In

	ReplicaSets Reader
	Pods        PodLister
	PodCommands domain.Executor[domain.Pod, domain.PodCommand]
	PodBatch    domain.BatchExecutor[domain.Pod, domain.PodCommand]
	RSCommands  domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// podCommands is the pods' Executor and BatchExecutor, which the app
// provides apart, as one PodCommands.
type podCommands struct {
	domain.Executor[domain.Pod, domain.PodCommand]
	domain.BatchExecutor[domain.Pod, domain.PodCommand]
}

// Module adds the ReplicaSet reconciler to the reconcilers' value group,
// under the name "replicaset" that --reconcilers switches, with the
// Config the app supplies (DefaultConfig when none).
var Module = reconcilers.Configured("replicaset", DefaultConfig, func(cfg Config, p Params) (*Reconciler, error) {
	return New(cfg, p.ReplicaSets, p.Pods, podCommands{p.PodCommands, p.PodBatch}, p.RSCommands, p.Clock, p.Logger)
})

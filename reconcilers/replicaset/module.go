package replicaset

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// Params are what the fx module builds the reconciler from: the small
// interfaces it reads and writes through, as the app provides them.
type Params struct {
	fx.In

	// Config is the reconciler's settings; DefaultConfig when the app
	// provides none.
	Config      Config `optional:"true"`
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

// FromParams is New on what fx provides.
func FromParams(p Params) (*Reconciler, error) {
	cfg := p.Config
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	return New(cfg, p.ReplicaSets, p.Pods, podCommands{p.PodCommands, p.PodBatch}, p.RSCommands, p.Clock, p.Logger)
}

// Module adds the ReplicaSet reconciler to the reconcilers' value group,
// under the name "replicaset" that --reconcilers switches. The app
// provides what Params asks for.
var Module = fx.Module("replicaset", reconcilers.Provide(FromParams))

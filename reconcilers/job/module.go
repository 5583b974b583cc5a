package job

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

	Jobs        Reader
	Pods        PodLister
	PodBatch    domain.BatchExecutor[domain.Pod, domain.PodCommand]
	JobCommands domain.Executor[domain.Job, domain.JobCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// Module adds the Job reconciler to the reconcilers' value group, under
// the name "job" that --reconcilers switches, with the Config the app
// supplies (DefaultConfig when none).
var Module = reconcilers.Configured("job", DefaultConfig, func(cfg Config, p Params) (*Reconciler, error) {
	return New(cfg, p.Jobs, p.Pods, p.PodBatch, p.JobCommands, p.Clock, p.Logger)
})

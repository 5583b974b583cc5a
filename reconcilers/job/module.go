package job

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
	Jobs        Reader
	Pods        PodLister
	PodBatch    domain.BatchExecutor[domain.Pod, domain.PodCommand]
	JobCommands domain.Executor[domain.Job, domain.JobCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// FromParams is New on what fx provides.
func FromParams(p Params) (*Reconciler, error) {
	cfg := p.Config
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	return New(cfg, p.Jobs, p.Pods, p.PodBatch, p.JobCommands, p.Clock, p.Logger)
}

// Module adds the Job reconciler to the reconcilers' value group, under
// the name "job" that --reconcilers switches. The app provides what
// Params asks for.
var Module = fx.Module("job", reconcilers.Provide(FromParams))

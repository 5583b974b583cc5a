package disruption

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
	Budgets     Reader
	Pods        PodLister
	ReplicaSets ReplicaSetReader
	Deployments DeploymentReader `optional:"true"`
	Commands    domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// FromParams is New on what fx provides.
func FromParams(p Params) (*Reconciler, error) {
	cfg := p.Config
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	r, err := New(cfg, p.Budgets, p.Pods, p.ReplicaSets, p.Commands, p.Clock, p.Logger)
	if err == nil {
		r.deployments = p.Deployments
	}
	return r, err
}

// Module adds the disruption reconciler to the reconcilers' value group,
// under the name "disruption" that --reconcilers switches. The app
// provides what Params asks for.
var Module = fx.Module("disruption", reconcilers.Provide(FromParams))

package deployment

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// Params are what the fx module builds the reconciler from.
type Params struct {
	fx.In

	// Config is the reconciler's settings; DefaultConfig when the app
	// provides none.
	Config      Config `optional:"true"`
	Deployments Reader
	ReplicaSets ReplicaSetLister
	RSCommands  domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	Commands    domain.Executor[domain.Deployment, domain.DeploymentCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// FromParams is New on what fx provides.
func FromParams(p Params) (*Reconciler, error) {
	cfg := p.Config
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	return New(cfg, p.Deployments, p.ReplicaSets, p.RSCommands, p.Commands, p.Clock, p.Logger)
}

// Module adds the Deployment reconciler to the reconcilers' value group,
// under the name "deployment" that --reconcilers switches.
var Module = fx.Module("deployment", reconcilers.Provide(FromParams))

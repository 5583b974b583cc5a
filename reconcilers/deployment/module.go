package deployment

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// Params are what the reconciler is built from, as the app provides it.
type Params struct {
	fx.In

	Deployments Reader
	ReplicaSets ReplicaSetLister
	RSCommands  domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	Commands    domain.Executor[domain.Deployment, domain.DeploymentCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// Module adds the Deployment reconciler to the reconcilers' value group,
// under the name "deployment" that --reconcilers switches, with the
// Config the app supplies (DefaultConfig when none).
var Module = reconcilers.Configured("deployment", DefaultConfig, func(cfg Config, p Params) (*Reconciler, error) {
	return New(cfg, p.Deployments, p.ReplicaSets, p.RSCommands, p.Commands, p.Clock, p.Logger)
})

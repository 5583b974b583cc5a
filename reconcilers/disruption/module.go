package disruption

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

	Budgets     Reader
	Pods        PodLister
	ReplicaSets ReplicaSetReader
	Deployments DeploymentReader `optional:"true"`
	Commands    domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand]
	Clock       clock.Clock
	Logger      *zap.Logger
}

// Module adds the disruption reconciler to the reconcilers' value group,
// under the name "disruption" that --reconcilers switches, with the
// Config the app supplies (DefaultConfig when none).
var Module = reconcilers.Configured("disruption", DefaultConfig, func(cfg Config, p Params) (*Reconciler, error) {
	r, err := New(cfg, p.Budgets, p.Pods, p.ReplicaSets, p.Commands, p.Clock, p.Logger)
	if err == nil {
		r.deployments = p.Deployments
	}
	return r, err
})

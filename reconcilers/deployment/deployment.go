package deployment

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// kindDeployment is the kind a ReplicaSet's owner reference names its
// Deployment by.
const kindDeployment = "Deployment"

// Reconciler is the Deployment reconciler. Its keys are Deployments,
// those that exist and those that are gone (whose ReplicaSets it
// deletes).
type Reconciler struct {
	cfg         Config
	deployments Reader
	replicaSets ReplicaSetLister
	rsCommands  domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	commands    domain.Executor[domain.Deployment, domain.DeploymentCommand]
	// uid makes the UIDs of new ReplicaSets.
	uid    func() string
	owners *reconcilers.OwnerIndex
	clock  clock.PassiveClock
	log    *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the Deployment reconciler, or what is wrong with cfg.
func New(cfg Config, deployments Reader, replicaSets ReplicaSetLister,
	rsCommands domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand],
	commands domain.Executor[domain.Deployment, domain.DeploymentCommand], clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reconciler{
		cfg: cfg, deployments: deployments, replicaSets: replicaSets, rsCommands: rsCommands, commands: commands,
		uid: uuid.NewString, owners: reconcilers.NewOwnerIndex(kindDeployment), clock: clk, log: log.Named("deployment"),
	}, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "deployment" }

// Watches implements reconcilers.Reconciler: Deployments, but the status
// the reconciler records itself, and the ReplicaSets each controls: their
// creation, spec, the status their own reconciler records as their pods
// come and go, and their deletion.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.DeploymentAggregate, domain.DeploymentStatusRecorded{}).
		Owns(domain.ReplicaSetAggregate, r.owners, domain.ReplicaSetDeleted{})
}

// key is the key of the Deployment namespace/name.
func key(namespace, name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.DeploymentAggregate, Namespace: namespace, Name: name}
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.ResyncPeriod }

// Resync returns every Deployment.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	all, _, err := r.deployments.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list deployments: %w", err)
	}
	keys := make([]reconcilers.Key, 0, len(all))
	for _, d := range all {
		keys = append(keys, key(d.Namespace, d.Name))
	}
	return keys, nil
}

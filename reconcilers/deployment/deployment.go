package deployment

import (
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
// deletes); its resync looks at every Deployment.
type Reconciler struct {
	reconcilers.Kind[domain.Deployment]
	cfg         Config
	deployments Reader
	replicaSets ReplicaSetLister
	rsCommands  domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	commands    domain.Executor[domain.Deployment, domain.DeploymentCommand]
	// uid makes the UIDs of new ReplicaSets.
	uid    func() string
	owners *reconcilers.OwnerIndex
	// selectors map an orphan ReplicaSet's events to the Deployments
	// that may adopt it.
	selectors *reconcilers.SelectorIndex
	clock     clock.PassiveClock
	log       *zap.Logger
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
		Kind: reconcilers.NewKind("deployment", domain.DeploymentAggregate, cfg.ResyncPeriod, deployments),
		cfg:  cfg, deployments: deployments, replicaSets: replicaSets, rsCommands: rsCommands, commands: commands,
		uid: uuid.NewString, owners: reconcilers.NewOwnerIndex(kindDeployment), selectors: reconcilers.NewSelectorIndex(), clock: clk, log: log.Named("deployment"),
	}, nil
}

// Watches implements reconcilers.Reconciler: Deployments, but the status
// the reconciler records itself, and the ReplicaSets each controls: their
// creation, spec, the status their own reconciler records as their pods
// come and go, and their deletion. A change of metadata alone reaches it
// from both: a Deployment's annotations (its change-cause) are copied to
// its current ReplicaSet, and a ReplicaSet's revision annotation orders
// the revisions.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.DeploymentAggregate, domain.DeploymentStatusRecorded{}).
		Owns(domain.ReplicaSetAggregate, r.owners, domain.ReplicaSetDeleted{}).
		Adopts(r.selectors)
}

package replicaset

import (
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// kindReplicaSet is the kind an owner reference names a ReplicaSet by.
const kindReplicaSet = "ReplicaSet"

// Reconciler is the ReplicaSet reconciler. Its keys are ReplicaSets,
// those that exist and those that are gone (whose pods it collects); its
// resync looks at every ReplicaSet, as Kubernetes' controller resyncs its
// informer: what finds the orphans created without an owner.
type Reconciler struct {
	reconcilers.PodOwner[domain.ReplicaSet]
	cfg         Config
	replicaSets Reader
	podCommands PodCommands
	rsCommands  domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the ReplicaSet reconciler, or the configuration's problems.
// It names new pods with reconcilers.RandomIdentities.
func New(cfg Config, replicaSets Reader, pods PodLister, podCommands PodCommands,
	rsCommands domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand], clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reconciler{
		PodOwner: reconcilers.NewPodOwner("replicaset", kindReplicaSet, domain.ReplicaSetAggregate, cfg.ResyncPeriod, replicaSets,
			pods, podCommands, clk, log),
		cfg: cfg, replicaSets: replicaSets, podCommands: podCommands, rsCommands: rsCommands,
	}, nil
}

// Watches implements reconcilers.Reconciler: ReplicaSets, but the status
// the reconciler records itself and a change of their labels or
// annotations alone (which pods a ReplicaSet keeps is its spec's to say:
// its Deployment writing its revision, or someone relabelling it, moves
// nothing here), and the pods each controls, before an event and after
// it; an orphan created or relabelled names the ReplicaSets whose
// selector matches it, which adopt it.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.ReplicaSetAggregate, domain.ReplicaSetStatusRecorded{}, domain.ReplicaSetMetadataChanged{}).
		Owns(domain.PodAggregate, r.Controlled.Owners(), domain.PodFinalized{}, reconcilers.PodStepsOwnersIgnore...).
		Adopts(r.Controlled.Selectors())
}

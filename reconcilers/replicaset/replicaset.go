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
	reconcilers.Kind[domain.ReplicaSet]
	cfg         Config
	replicaSets Reader
	// controlled reads the ReplicaSets' pods and collects those of one
	// that is gone.
	controlled  *reconcilers.Controlled
	podCommands PodCommands
	rsCommands  domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	ids         Identities
	clock       clock.PassiveClock
	log         *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the ReplicaSet reconciler, or the configuration's problems.
// It names new pods with RandomIdentities.
func New(cfg Config, replicaSets Reader, pods PodLister, podCommands PodCommands,
	rsCommands domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand], clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log = log.Named("replicaset")
	return &Reconciler{
		Kind: reconcilers.NewKind("replicaset", domain.ReplicaSetAggregate, cfg.ResyncPeriod, replicaSets),
		cfg:  cfg, replicaSets: replicaSets, controlled: reconcilers.NewControlled(kindReplicaSet, pods, podCommands, 0, log),
		podCommands: podCommands, rsCommands: rsCommands, ids: RandomIdentities(), clock: clk, log: log,
	}, nil
}

// Watches implements reconcilers.Reconciler: ReplicaSets, but the status
// the reconciler records itself and a change of their labels or
// annotations alone (which pods a ReplicaSet keeps is its spec's to say:
// its Deployment writing its revision, or someone relabelling it, moves
// nothing here), and the pods each controls, before an event and after
// it. An orphan created without an owner names no ReplicaSet: the resync
// finds the one that adopts it.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.ReplicaSetAggregate, domain.ReplicaSetStatusRecorded{}, domain.ReplicaSetMetadataChanged{}).
		Owns(domain.PodAggregate, r.controlled.Owners(), domain.PodFinalized{}, reconcilers.PodStepsOwnersIgnore...)
}

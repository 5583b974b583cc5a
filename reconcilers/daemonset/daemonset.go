package daemonset

import (
	"context"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// Reconciler is the DaemonSet reconciler. Its keys are DaemonSets, those
// that exist and those that are gone (whose pods it collects).
type Reconciler struct {
	reconcilers.Kind[domain.DaemonSet]
	cfg        Config
	daemonSets Reader
	nodes      NodeLister
	pods       PodLister
	// controlled reads the DaemonSets' pods and collects those of one
	// that is gone; its Owners map a pod's events to its DaemonSet.
	controlled  *reconcilers.Controlled
	podCommands PodCommands
	dsCommands  domain.Executor[domain.DaemonSet, domain.DaemonSetCommand]
	// revs keeps the DaemonSets' ControllerRevisions; nil keeps none.
	revs *revisionKeeper
	ids  Identities
	// revOwners maps a ControllerRevision's events to its DaemonSet;
	// known maps a node's to every DaemonSet.
	revOwners *reconcilers.OwnerIndex
	known     *registry
	// failed spaces the deletions of a node's failed pods; pace the
	// reconciles that only pods turning ready call for.
	failed *failedBackoff
	pace   *pace
	clock  clock.PassiveClock
	log    *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the DaemonSet reconciler, or the configuration's problems.
// It names new pods with RandomIdentities.
func New(cfg Config, daemonSets Reader, nodes NodeLister, pods PodLister, podCommands PodCommands,
	dsCommands domain.Executor[domain.DaemonSet, domain.DaemonSetCommand], clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log = log.Named("daemonset")
	return &Reconciler{
		Kind: reconcilers.NewKind("daemonset", domain.DaemonSetAggregate, cfg.ResyncPeriod, daemonSets),
		cfg:  cfg, daemonSets: daemonSets, nodes: nodes, pods: pods, controlled: reconcilers.NewControlled(domain.KindDaemonSet, pods, podCommands, maxBatch, log),
		podCommands: podCommands, dsCommands: dsCommands, ids: RandomIdentities(),
		revOwners: reconcilers.NewOwnerIndex(domain.KindDaemonSet), known: newRegistry(), failed: newFailedBackoff(), pace: newPace(),
		clock: clk, log: log,
	}, nil
}

// nodeEvents are what happens to a node that may change whether a
// DaemonSet should run a pod there, as Kubernetes' controller reacts to
// a node added, deleted, or changed in its labels, taints or readiness.
// Heartbeats, the bulk of the log, are not among them; nor is a cordon,
// which every DaemonSet's pod tolerates.
var nodeEvents = reconcilers.EventTypesOf(
	domain.NodeRegistered{}, domain.NodeRestarted{}, domain.NodeLabelsChanged{}, domain.NodeTainted{}, domain.NodeUntainted{},
	domain.NodeBecameReady{}, domain.NodeBecameNotReady{}, domain.NodeDeleted{},
)

// Watches implements reconcilers.Reconciler: DaemonSets, but the status
// the reconciler records itself and a change of their labels or
// annotations alone (its spec says which pods go where); the pods each controls, before an event
// and after it; and a node's arrival, departure or change, mapped to
// every DaemonSet, from memory: the cost of a node event is one
// reconcile per DaemonSet, and none reads more than its own namespace's
// pods. An orphan pod created or relabelled names the DaemonSets whose
// selector matches it, which adopt it. Its ControllerRevisions are
// watched as Kubernetes' controller watches them, their labels included
// (the hash a revision is known by): one deleted, changed or made by
// someone else reaches its DaemonSet at once, not at the
// next resync (those it writes itself reach it too, and the reconcile
// they queue writes nothing). Every key but those of a pod's readiness
// is wanted at once (pace).
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.DaemonSetAggregate, domain.DaemonSetStatusRecorded{}, domain.DaemonSetMetadataChanged{}).
		Owns(domain.PodAggregate, r.controlled.Owners(), domain.PodFinalized{}, reconcilers.PodStepsOwnersIgnore...).
		Adopts(r.controlled.Selectors()).
		Owns(domain.ControllerRevisionAggregate, r.revOwners, domain.ControllerRevisionDeleted{}).
		Adopts(r.controlled.Selectors()).
		Watches(nodeEvents, func(events.Record) []reconcilers.Key { return r.known.keys() }).
		Then(r.observe)
}

// observe remembers the DaemonSets whose events it sees, for the node
// events to come, and wants every key at once but those of a pod's
// readiness.
func (r *Reconciler) observe(rec events.Record, keys []reconcilers.Key) {
	if k, ok := reconcilers.KeyOf(rec); ok && k.Aggregate == domain.DaemonSetAggregate {
		if reconcilers.Is[domain.DaemonSetDeleted](rec) {
			r.known.forget(k)
		} else {
			r.known.add(k)
		}
	}
	if !r.readinessOnly(rec) {
		for _, k := range keys {
			r.pace.want(k)
		}
	}
}

// readinessOnly reports whether rec is a pod's new status that only its
// DaemonSet's counts follow: not one that ends the pod, which the
// DaemonSet deletes.
func (r *Reconciler) readinessOnly(rec events.Record) bool {
	if !reconcilers.Is[domain.PodStatusUpdated](rec) {
		return false
	}
	ev, err := reconcilers.Decode[domain.PodStatusUpdated](rec)
	return err == nil && ev.Status.Phase != domain.PodFailed && ev.Status.Phase != domain.PodSucceeded
}

// Resync returns every DaemonSet, as Kubernetes' controller resyncs its
// informer, and remembers them for the node events to come: what finds
// the orphans created without an owner, and the DaemonSets of a herd
// that just started.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	keys, err := r.Kind.Resync(ctx)
	for _, k := range keys {
		r.known.add(k)
		r.pace.want(k)
	}
	return keys, err
}

package deployment

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
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

var scope = reconcilers.Scope{Aggregates: []*domain.Aggregate{domain.DeploymentAggregate}}

// Scope implements reconcilers.Reconciler.
func (r *Reconciler) Scope() reconcilers.Scope { return scope }

// deploymentEvents are the Deployment's changes that call for a
// reconcile; the status it records itself does not.
var deploymentEvents = reconcilers.EventTypesOf(domain.DeploymentCreated{}, domain.DeploymentChanged{}, domain.DeploymentDeleted{},
	domain.DeploymentDeletionRequested{})

// replicaSetEvents are what happens to a ReplicaSet that its Deployment
// follows: its creation, a new spec, the status its own reconciler
// records as its pods come and go, and its deletion.
var replicaSetEvents = reconcilers.EventTypesOf(domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{},
	domain.ReplicaSetStatusRecorded{}, domain.ReplicaSetDeleted{}, domain.ReplicaSetOwnersChanged{})

// KeysFor maps a Deployment's changes to it, and an event of a
// ReplicaSet to the Deployment that controls it.
func (r *Reconciler) KeysFor(rec events.Record) []reconcilers.Key {
	switch {
	case deploymentEvents.Match(rec):
		return reconcilers.KeysOf(rec)
	case replicaSetEvents.Match(rec):
		k, ok := reconcilers.KeyOf(rec)
		if !ok || k.Aggregate != domain.ReplicaSetAggregate {
			return nil
		}
		rs := domain.Key{Namespace: k.Namespace, Name: k.Name}
		owner := r.owners.Get(rs)
		var owners []domain.OwnerReference
		switch {
		case reconcilers.Is[domain.ReplicaSetCreated](rec):
			ev, err := reconcilers.Decode[domain.ReplicaSetCreated](rec)
			if err != nil {
				r.unreadable(rec, err)
				return nil
			}
			owners = ev.Owners
		case reconcilers.Is[domain.ReplicaSetOwnersChanged](rec):
			ev, err := reconcilers.Decode[domain.ReplicaSetOwnersChanged](rec)
			if err != nil {
				r.unreadable(rec, err)
				return nil
			}
			owners = ev.Owners
		case reconcilers.Is[domain.ReplicaSetDeleted](rec):
			r.owners.Set(rs, "")
			return keysOf(k.Namespace, owner)
		default:
			return keysOf(k.Namespace, owner)
		}
		now := r.owners.Controller(owners)
		if was := r.owners.Set(rs, now); was != now {
			return keysOf(k.Namespace, was, now)
		}
		return keysOf(k.Namespace, now)
	}
	return nil
}

// unreadable logs a record KeysFor cannot decode; only a log written by a
// newer herd could hold one, and the resync still finds the Deployment.
func (r *Reconciler) unreadable(rec events.Record, err error) {
	r.log.Error("unreadable replicaset event", zap.String("stream", rec.Stream), zap.Int64("position", rec.Position), zap.Error(err))
}

// keysOf are the keys of the named Deployments of namespace, the empty
// names left out.
func keysOf(namespace string, names ...string) []reconcilers.Key {
	var keys []reconcilers.Key
	for _, n := range names {
		if n != "" {
			keys = append(keys, key(namespace, n))
		}
	}
	return keys
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

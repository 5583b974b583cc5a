package job

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// kindJob is the kind an owner reference names a Job by.
const kindJob = "Job"

// Reconciler is the Job reconciler. Its keys are Jobs, those that exist
// and those that are gone (whose pods it collects).
type Reconciler struct {
	cfg         Config
	jobs        Reader
	pods        PodLister
	podCommands PodCommands
	jobCommands domain.Executor[domain.Job, domain.JobCommand]
	ids         Identities
	owners      *reconcilers.OwnerIndex
	clock       clock.PassiveClock
	log         *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the Job reconciler, or the configuration's problems. It
// names new pods with RandomIdentities; clk is what its deadlines, its
// backoff and its TTLs are measured by.
func New(cfg Config, jobs Reader, pods PodLister, podCommands PodCommands,
	jobCommands domain.Executor[domain.Job, domain.JobCommand], clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reconciler{
		cfg: cfg, jobs: jobs, pods: pods, podCommands: podCommands, jobCommands: jobCommands,
		ids: RandomIdentities(), owners: reconcilers.NewOwnerIndex(kindJob), clock: clk, log: log.Named("job"),
	}, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "job" }

// scope is the keys the reconciler takes: Jobs.
var scope = reconcilers.Scope{Aggregates: []*domain.Aggregate{domain.JobAggregate}}

// Scope implements reconcilers.Reconciler.
func (r *Reconciler) Scope() reconcilers.Scope { return scope }

// jobEvents are the Job's changes that call for a reconcile; the status
// it records and the pods it counts itself do not.
var jobEvents = reconcilers.EventTypesOf(domain.JobCreated{}, domain.JobChanged{}, domain.JobDeleted{}, domain.JobDeletionRequested{})

// podEvents are what happens to a pod that may change what its owner counts
// or does (reconcilers.OwnedPodEvents).
var podEvents = reconcilers.OwnedPodEvents

// KeysFor maps a Job's changes to it, and an event of a pod to the Job
// that controls the pod.
func (r *Reconciler) KeysFor(rec events.Record) []reconcilers.Key {
	switch {
	case jobEvents.Match(rec):
		return reconcilers.KeysOf(rec)
	case podEvents.Match(rec):
		return r.owners.PodKeys(rec, domain.JobAggregate, r.unreadable)
	}
	return nil
}

// unreadable logs a record KeysFor cannot decode; only a log written by a
// newer herd could hold one, and the resync still finds the Job.
func (r *Reconciler) unreadable(rec events.Record, err error) {
	r.log.Error("unreadable pod event", zap.String("stream", rec.Stream), zap.Int64("position", rec.Position), zap.Error(err))
}

// keysOf are the keys of the named Jobs of namespace, the empty names
// left out.
func keysOf(namespace string, names ...string) []reconcilers.Key {
	var keys []reconcilers.Key
	for _, n := range names {
		if n != "" {
			keys = append(keys, reconcilers.Key{Aggregate: domain.JobAggregate, Namespace: namespace, Name: n})
		}
	}
	return keys
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.ResyncPeriod }

// Resync returns every Job.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	all, _, err := r.jobs.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	keys := make([]reconcilers.Key, 0, len(all))
	for _, j := range all {
		keys = append(keys, keysOf(j.Namespace, j.Name)...)
	}
	return keys, nil
}

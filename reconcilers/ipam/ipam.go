package ipam

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// The passes the reconciler works on besides its pods.
var (
	// keyWaiting tries again every pod that found the pools full.
	keyWaiting = reconcilers.Pass("waiting")
	// keyCollect releases addresses whose pods are gone.
	keyCollect = reconcilers.Pass("collect")
)

// Reasons recorded on released addresses.
const (
	ReleasedPodFinalized = "PodFinalized"
	ReleasedOrphaned     = "Orphaned"
	ReleasedSuperseded   = "Superseded"
)

// Repository is what the reconciler writes through.
type Repository interface {
	PodCommands() domain.Executor[domain.Pod, domain.PodCommand]
	IPPoolCommands() domain.Executor[domain.IPPool, domain.IPPoolCommand]
}

// Reconciler is the IPAM reconciler.
type Reconciler struct {
	cfg   Config
	pools []domain.PoolNetwork
	repo  Repository
	pods  PodReader
	view  AllocationReader
	clock clock.PassiveClock
	log   *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the IPAM reconciler, or an error naming the setting that is
// wrong.
func New(cfg Config, repo Repository, pods PodReader, view AllocationReader, clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	pools, err := cfg.Validate()
	if err != nil {
		return nil, err
	}
	return &Reconciler{cfg: cfg, pools: pools, repo: repo, pods: pods, view: view, clock: clk, log: log.Named("ipam")}, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "ipam" }

// Watches implements reconcilers.Reconciler: a pod's binding and its end,
// mapped to the pod, and an address released to the pods waiting for
// one.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		Takes(domain.PodAggregate).
		Passes(keyWaiting, keyCollect).
		Watches(reconcilers.EventTypesOf(domain.PodScheduled{}, domain.PodFinalized{}), reconcilers.KeysOf).
		Watches(reconcilers.EventTypesOf(domain.IPReleased{}), reconcilers.ToPass(keyWaiting))
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.ResyncPeriod }

// Resync enqueues every bound pod still without an address, the waiting
// ones, and a sweep for addresses whose pods are gone.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	pods, err := r.needAddress(ctx)
	if err != nil {
		return nil, err
	}
	keys := []reconcilers.Key{keyCollect, keyWaiting}
	for _, p := range pods {
		keys = append(keys, reconcilers.Key{Aggregate: domain.PodAggregate, Namespace: p.Namespace, Name: p.Name})
	}
	return keys, nil
}

// Reconcile implements reconcilers.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:ipam", Source: "reconciler/ipam"})
	switch key {
	case keyWaiting:
		return reconcilers.Result{}, r.retryWaiting(ctx)
	case keyCollect:
		return reconcilers.Result{}, r.collect(ctx)
	}
	p, err := r.pods.GetIncludingFinalized(ctx, key.Namespace, key.Name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	if err := r.releaseFormer(ctx, p); err != nil {
		return reconcilers.Result{}, err
	}
	if p.Finalized {
		// The address goes back because the pod is gone.
		if ctx, err = reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.PodFinalized](domain.PodStream(p.Namespace, p.Name), p.Version, nil)); err != nil {
			return reconcilers.Result{}, err
		}
		return reconcilers.Result{}, r.release(ctx, p.UID, ReleasedPodFinalized)
	}
	if !wantsAddress(p) {
		return reconcilers.Result{}, nil
	}
	_, err = r.allocate(ctx, p)
	return reconcilers.Result{}, err
}

// releaseFormer gives back the addresses held under p's name by pods made
// under it before p: the key of a pod's finalization names the pod, and
// by the time it is reconciled another may have been made under the name
// (a StatefulSet makes its pods again at once), which would otherwise
// leave the old address held until the sweep, and the new pod without
// it in a full pool.
func (r *Reconciler) releaseFormer(ctx context.Context, p domain.Pod) error {
	held, err := r.view.AllocationsNamed(ctx, p.Namespace, p.Name)
	if err != nil {
		return err
	}
	for _, a := range held {
		if a.PodUID == p.UID {
			continue
		}
		// What sends it back is the finalization of the pod that held
		// it: the last one of the name's stream before p was made.
		rctx, err := reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.PodFinalized](domain.PodStream(p.Namespace, p.Name), p.Version, nil))
		if err != nil {
			return err
		}
		r.log.Info("releasing the address of a pod made again under its name", zap.String("pod", p.Namespace+"/"+p.Name), zap.String("ip", a.Address))
		if err := r.releaseIn(rctx, a.Pool, a.PodUID, ReleasedPodFinalized); err != nil {
			return err
		}
	}
	return nil
}

// wantsAddress reports whether a pod should get an address now: one of
// herd's own, bound, without one, and neither finished nor being deleted.
func wantsAddress(p domain.Pod) bool {
	return p.Exists() && !p.Observed() && p.Spec.NodeName != "" && p.Network == nil && !p.Terminating() && !p.Finished()
}

// needAddress lists the pods that want an address, oldest first, so that
// addresses freed in a full pool go to the pods that waited longest.
func (r *Reconciler) needAddress(ctx context.Context) ([]domain.Pod, error) {
	herd := domain.SourceHerd
	pods, _, err := r.pods.List(ctx, projections.PodFilter{Phase: domain.PodPending, Source: &herd})
	if err != nil {
		return nil, err
	}
	var out []domain.Pod
	for _, p := range pods {
		if wantsAddress(p) {
			out = append(out, p)
		}
	}
	sortOldestFirst(out)
	return out, nil
}

// retryWaiting gives addresses to waiting pods, oldest first, until the
// pools run out again.
func (r *Reconciler) retryWaiting(ctx context.Context) error {
	pods, err := r.needAddress(ctx)
	if err != nil {
		return err
	}
	for i, p := range pods {
		full, err := r.allocate(ctx, p)
		if err != nil {
			return err
		}
		if full == "" {
			continue
		}
		// Every pod draws on the same pools: once one finds them full,
		// the others would too, so they are told without asking again.
		for _, rest := range pods[i+1:] {
			if err := r.markUnavailable(ctx, rest, full); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

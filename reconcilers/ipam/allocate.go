package ipam

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// allocate gives p an address: the one it already holds (after a crash
// between allocation and assignment), or the lowest free one of the first
// pool that has one. When every pool is full it marks the pod and returns
// the message saying so.
func (r *Reconciler) allocate(ctx context.Context, p domain.Pod) (full string, err error) {
	// A pod wants an address once it is bound to a node.
	if ctx, err = reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.PodScheduled](domain.PodStream(p.Namespace, p.Name), p.Version, nil)); err != nil {
		return "", err
	}
	a, held, err := r.view.AllocationOf(ctx, p.UID)
	if err != nil {
		return "", err
	}
	var exhausted []string
	for _, n := range r.pools {
		if held {
			break
		}
		cidr := n.Prefix.String()
		pool, err := r.repo.IPPoolCommands().Execute(ctx, domain.Key{Name: cidr},
			domain.AllocateIP{PodUID: p.UID, Namespace: p.Namespace, Name: p.Name})
		var ex *domain.PoolExhaustedError
		if errors.As(err, &ex) {
			exhausted = append(exhausted, ex.Error())
			continue
		}
		if err != nil {
			return "", fmt.Errorf("allocate an address in %s for pod %s: %w", cidr, p.Key(), err)
		}
		got, _ := pool.HolderOf(p.UID)
		a, held = projections.IPAllocation{IPAllocation: got, Pool: cidr}, true
	}
	if !held {
		full = strings.Join(exhausted, "; ")
		r.log.Info("no address for pod", zap.String("pod", p.Key()), zap.String("reason", full))
		return full, r.markUnavailable(ctx, p, full)
	}
	return "", r.assign(ctx, p, a)
}

// assign records the allocation on the pod. A pod that cannot take it (it
// went, was replaced, is being deleted, or got another address in the
// meantime) gives it back.
func (r *Reconciler) assign(ctx context.Context, p domain.Pod, a projections.IPAllocation) error {
	n, err := domain.ParseIPPool(a.Pool)
	if err != nil {
		return err
	}
	nw := n.NetworkFor(a.Address)
	// PodUID refuses a pod replaced since under the same name, as a
	// conflict: the address goes back below.
	_, err = r.repo.PodCommands().Execute(ctx, domain.Key{Namespace: p.Namespace, Name: p.Name},
		domain.AssignPodIP{Network: nw, PodUID: p.UID})
	switch {
	case err == nil:
		r.log.Debug("address assigned", zap.String("pod", p.Key()), zap.String("ip", a.Address), zap.String("pool", a.Pool))
		return nil
	case errors.Is(err, events.ErrConflict):
		return err // a concurrent writer: decide again on the retry
	case errors.Is(err, domain.ErrConflict), errors.Is(err, domain.ErrNotFound):
		reason := ReleasedOrphaned
		if cur, gerr := r.pods.Get(ctx, p.Namespace, p.Name); gerr == nil && cur.UID == p.UID && cur.Network != nil {
			reason = ReleasedSuperseded
		}
		r.log.Info("pod cannot take its address; releasing it", zap.String("pod", p.Key()), zap.String("ip", a.Address), zap.Error(err))
		return r.releaseIn(ctx, a.Pool, p.UID, reason)
	}
	return fmt.Errorf("assign %s to pod %s: %w", a.Address, p.Key(), err)
}

// markUnavailable tells a pod that no pool has an address for it.
func (r *Reconciler) markUnavailable(ctx context.Context, p domain.Pod, msg string) error {
	_, err := r.repo.PodCommands().Execute(ctx, domain.Key{Namespace: p.Namespace, Name: p.Name},
		domain.IfSamePod{UID: p.UID, Command: domain.MarkPodIPUnavailable{Message: msg}})
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	return err
}

// release gives back every address a pod (by UID) holds.
func (r *Reconciler) release(ctx context.Context, uid, reason string) error {
	for range len(r.pools) + 1 {
		a, held, err := r.view.AllocationOf(ctx, uid)
		if err != nil || !held {
			return err
		}
		if err := r.releaseIn(ctx, a.Pool, uid, reason); err != nil {
			return err
		}
	}
	return nil
}

// releaseIn gives back the address a pod holds in one pool.
func (r *Reconciler) releaseIn(ctx context.Context, pool, uid, reason string) error {
	_, err := r.repo.IPPoolCommands().Execute(ctx, domain.Key{Name: pool}, domain.ReleaseIP{PodUID: uid, Reason: reason})
	if err != nil {
		return fmt.Errorf("release the address of pod %s in %s: %w", uid, pool, err)
	}
	return nil
}

// collect releases the addresses of pods that are gone, replaced, or hold
// another address: what a crash between an allocation and its pod, or a
// lost race between two allocators, can leave behind.
func (r *Reconciler) collect(ctx context.Context) error {
	allocs, err := r.view.Allocations(ctx)
	if err != nil {
		return err
	}
	for _, a := range allocs {
		reason := ""
		p, err := r.pods.GetIncludingFinalized(ctx, a.Namespace, a.Name)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			reason = ReleasedOrphaned
		case err != nil:
			return err
		case p.UID != a.PodUID:
			reason = ReleasedOrphaned
		case p.Finalized:
			reason = ReleasedPodFinalized
		case p.Network != nil && (p.Network.IP != a.Address || p.Network.Pool != a.Pool):
			reason = ReleasedSuperseded
		}
		if reason == "" {
			continue
		}
		r.log.Info("releasing a stray address", zap.String("pod", a.Namespace+"/"+a.Name), zap.String("ip", a.Address), zap.String("reason", reason))
		// A sweep answers the clock, but what it finds is a pod's end:
		// the last finalization of the pod's name (its own, or that of
		// the pod it held the address for before another was made
		// under the name, a StatefulSet's), where the log holds one.
		rctx := ctx
		if err == nil {
			if rctx, err = reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.PodFinalized](domain.PodStream(a.Namespace, a.Name), p.Version, nil)); err != nil {
				return err
			}
		}
		if err := r.releaseIn(rctx, a.Pool, a.PodUID, reason); err != nil {
			return err
		}
	}
	return nil
}

// sortOldestFirst orders pods by creation, then by namespace and name.
func sortOldestFirst(pods []domain.Pod) {
	slices.SortStableFunc(pods, func(a, b domain.Pod) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Key(), b.Key())
	})
}

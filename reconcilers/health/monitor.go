package health

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"herd/domain"
)

// monitor is one check of every node's deadline. It judges the fleet first,
// counting the nodes about to be marked, so that in a mass outage not one
// NoExecute taint goes on before herd has recognised the outage as its own.
func (r *Reconciler) monitor(ctx context.Context) error {
	now := r.clock.Now()
	stale, err := r.view.StaleNodes(ctx, now, r.cfg.GracePeriod, r.cfg.StartupGracePeriod)
	if err != nil || len(stale) == 0 {
		return err
	}
	assessment, err := r.assessFleetWith(ctx, len(stale))
	if err != nil {
		return err
	}
	note := ""
	if assessment.IsDisrupted() {
		note = assessment.Note()
	}
	for _, name := range stale {
		_, err := r.repo.UpdateNode(ctx, name, func(n domain.Node) ([]domain.Event, error) {
			return domain.DecideNode(n, domain.MarkNodeUnreachable{Note: note}, now)
		})
		if errors.Is(err, domain.ErrNotFound) {
			continue // deleted since the query
		}
		if err != nil {
			return err
		}
		r.log.Info("node stopped reporting", zap.String("node", name))
	}
	return nil
}

// assessFleet judges the fleet as it stands now: the nodes marked
// unreachable plus those whose deadline has passed but which the monitor
// has not marked yet. Counting only the marked ones would let a node's
// reconcile, running beside a monitor pass, see the outage half-recorded
// and end the disruption the monitor has just started.
func (r *Reconciler) assessFleet(ctx context.Context) (domain.AssessFleet, error) {
	stale, err := r.view.StaleNodes(ctx, r.clock.Now(), r.cfg.GracePeriod, r.cfg.StartupGracePeriod)
	if err != nil {
		return domain.AssessFleet{}, err
	}
	return r.assessFleetWith(ctx, len(stale))
}

// assessFleetWith counts the fleet's reachability, with extra more nodes
// about to become unreachable, and records a change of disruption state.
func (r *Reconciler) assessFleetWith(ctx context.Context, extra int) (domain.AssessFleet, error) {
	unreachable, total, err := r.view.Reachability(ctx)
	if err != nil {
		return domain.AssessFleet{}, err
	}
	a := domain.AssessFleet{Unreachable: min(unreachable+extra, total), Total: total}
	now := r.clock.Now()
	fleet, err := r.view.FleetHealth(ctx)
	if err != nil || a.IsDisrupted() == fleet.Disrupted {
		return a, err
	}
	_, err = r.repo.UpdateFleetHealth(ctx, func(f domain.FleetHealth) ([]domain.Event, error) {
		return domain.DecideFleet(f, a, now)
	})
	if err == nil {
		r.log.Warn("fleet disruption state changed", zap.Bool("disrupted", a.IsDisrupted()),
			zap.Int("unreachable", a.Unreachable), zap.Int("total", a.Total))
	}
	return a, err
}

// syncTaints makes one node's condition taints follow its conditions,
// withholding NoExecute during a fleet disruption. It decides on the view
// first and opens a write transaction only when there is something to
// change.
func (r *Reconciler) syncTaints(ctx context.Context, name string, disrupted bool) error {
	cmd := domain.SyncConditionTaints{WithholdNoExecute: disrupted}
	now := r.clock.Now()
	n, err := r.view.Get(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if evs, err := domain.DecideNode(n, cmd, now); err != nil || len(evs) == 0 {
		return err
	}
	_, err = r.repo.UpdateNode(ctx, name, func(n domain.Node) ([]domain.Event, error) {
		if !n.Exists() {
			return nil, nil
		}
		return domain.DecideNode(n, cmd, now)
	})
	return err
}

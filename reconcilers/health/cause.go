package health

import (
	"context"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// causedTaints are condition taints to sync under one cause.
type causedTaints struct {
	cause events.Record // zero: the reconcile's fallback
	only  []domain.Taint
}

// taintCauses groups the taint changes evs (decided on n) by the change
// each read: the event that last turned the taint's condition on n up to
// the version read and, for a NoExecute taint, the fleet's disruption
// starting or ending when that came later (it is what withheld or
// released the taint).
func (r *Reconciler) taintCauses(ctx context.Context, n domain.Node, evs []domain.Event) ([]causedTaints, error) {
	var out []causedTaints
	byCause := map[string]int{}
	for _, ev := range evs {
		var t domain.Taint
		switch ev := ev.(type) {
		case domain.NodeTainted:
			t = domain.Taint{Key: ev.Taint.Key, Effect: ev.Taint.Effect}
		case domain.NodeUntainted:
			t = domain.Taint{Key: ev.Key, Effect: ev.Effect}
		default:
			continue
		}
		cause, err := r.taintCause(ctx, n, t)
		if err != nil {
			return nil, err
		}
		i, ok := byCause[cause.ID]
		if !ok {
			i = len(out)
			byCause[cause.ID] = i
			out = append(out, causedTaints{cause: cause})
		}
		out[i].only = append(out[i].only, t)
	}
	return out, nil
}

// taintCause is the change that puts on or takes off t on n; the zero
// Record when the log holds none. The turn of t's condition comes from
// the turns kept in memory where they hold the log's answer.
func (r *Reconciler) taintCause(ctx context.Context, n domain.Node, t domain.Taint) (events.Record, error) {
	cond, _ := domain.ConditionOfTaint(t.Key)
	turned, ok := r.turns.last(n.Name, cond, n.Version)
	var err error
	if !ok {
		turned, _, err = reconcilers.LastChange(ctx, reconcilers.ChangeOf(domain.NodeStream(n.Name), n.Version,
			func(ch domain.NodeConditionChanged) bool { return ch.Type == cond }))
	}
	if err != nil || t.Effect != domain.EffectNoExecute {
		return turned, err
	}
	fleet, err := r.disruptionTurn(ctx)
	newest, _ := reconcilers.Newest(turned, fleet)
	return newest, err
}

// disruptionTurn is the fleet's last disruption start or end; the zero
// Record when the log holds none. It comes from the fleet's turns kept
// in memory where they hold the log's answer for the fleet as read now
// (from memory too, on SQLite), else from the log.
func (r *Reconciler) disruptionTurn(ctx context.Context) (events.Record, error) {
	if f, err := r.view.FleetHealth(ctx); err == nil {
		if rec, ok := r.fleetTurns.last(f.Version); ok {
			return rec, nil
		}
	}
	rec, _, err := reconcilers.LastChange(ctx, reconcilers.Change{Stream: domain.FleetHealthStream,
		Types: []string{domain.FleetDisruptionStarted{}.EventType(), domain.FleetDisruptionEnded{}.EventType()}})
	return rec, err
}

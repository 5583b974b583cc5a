package health

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
)

// reconcileNode brings one node's taints in line with its conditions. It
// reads that node and the fleet's recorded health, one row each, and
// judges the fleet from the tally, which it updates with this node: a
// node coming back can end a disruption at once, without reading the
// rest of the fleet.
func (r *Reconciler) reconcileNode(ctx context.Context, name string) error {
	now := r.clock.Now()
	n, err := heard(ctx, r.view, name)
	if err != nil {
		return err
	}
	if err := r.seedIfNeeded(ctx); err != nil {
		return err
	}
	r.observe(n, name, now)
	a := r.assess()
	disrupted, err := r.recordFleet(ctx, a)
	if err != nil || !n.Exists() {
		return err
	}
	return r.syncTaints(ctx, n, r.pace(disrupted, a))
}

// syncAll is the full resync: it counts the fleet afresh, judges it, and
// brings the taints in line of every node that has or needs a condition
// taint (the others have nothing to change). It runs on the full resync
// period and after the disruption state changes. It counts and finds
// those nodes from what it keeps in memory (checks), and reads the whole
// fleet from the view on its first pass of a term and every
// fullReadEvery passes.
func (r *Reconciler) syncAll(ctx context.Context) error {
	full := r.fleet.needsSeed() || !r.deadlines.seeded() || r.checks.due()
	if full {
		if err := r.seed(ctx); err != nil {
			return err
		}
	} else if err := r.recountFromMemory(ctx); err != nil {
		return err
	}
	a := r.assess()
	disrupted, err := r.recordFleet(ctx, a)
	if err != nil {
		return err
	}
	p := r.pace(disrupted, a)
	var names []string
	if full {
		r.checks.begin()
		if names, err = r.view.NamesNeedingTaintCheck(ctx); err != nil {
			r.checks.abort()
			return err
		}
		r.checks.replace(names)
	} else {
		names = r.checks.list()
	}
	if p.adds() && r.evictions.limited() {
		// Under an eviction rate the nodes wait for their turns in the
		// order of their names, whichever of the syncs below runs first.
		r.evictions.wait(slices.Sorted(slices.Values(names)), r.clock.Now())
	}
	// Many at a time, as the monitor marks: each sync that writes waits
	// for a group commit, and the writes of many share one. One by one, a
	// fleet change over 100,000 nodes took minutes.
	failed := forEach(ctx, names, markers, func(name string) error {
		n, err := r.view.Get(ctx, name)
		if errors.Is(err, domain.ErrNotFound) {
			r.checks.note(name, domain.Node{})
			return nil
		}
		if err != nil {
			return err
		}
		return r.syncTaints(ctx, n, p)
	})
	if len(failed) > 0 {
		return fmt.Errorf("taints of %d nodes not synced, %s among them", len(failed), failed[0])
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = r.giveTurns(ctx)
	return err
}

// recountFromMemory counts the fleet afresh from the deadlines kept in
// memory, as seed does from the view: each node as it is at now. It holds
// the deadlines only while it copies them and the fleet's count only
// while it puts the new count in place, so that the heartbeats and
// reconciles handed to the health rules meanwhile do not wait for it; it
// reads how far herd's writes are behind at most once, and asks for a
// heartbeat still on its way to the log only of a node silent by the
// heartbeats written.
func (r *Reconciler) recountFromMemory(ctx context.Context) error {
	lag := sync.OnceValue(r.backlog.Oldest)
	nodes := 0
	// fill runs one recount at a time (the tally's), so recountBuf is
	// its alone.
	r.fleet.recount(func(put func(string, reach)) {
		now, since := r.clock.Now(), r.since()
		r.recountBuf = r.deadlines.snapshot(r.recountBuf)
		for _, e := range r.recountBuf {
			put(e.name, r.classifyWith(e.name, e.ready, e.lastHeartbeat, e.registeredAt, since, now, lag))
		}
		nodes = len(r.recountBuf)
	})
	return r.announce(ctx, nodes)
}

// seedIfNeeded counts the fleet and takes the deadlines from the view the
// first time they are needed.
func (r *Reconciler) seedIfNeeded(ctx context.Context) error {
	if !r.fleet.needsSeed() && r.deadlines.seeded() {
		return nil
	}
	return r.seed(ctx)
}

// seed counts the fleet from the view: the nodes expected to report, and
// which of them are unreachable (Ready Unknown, or past their deadline and
// not marked yet); and takes every node's deadline from it.
func (r *Reconciler) seed(ctx context.Context) error {
	now := r.clock.Now()
	ds, err := r.view.NodeDeadlines(ctx)
	if err != nil {
		return err
	}
	since := r.since()
	m := make(map[string]reach, len(ds))
	for _, d := range ds {
		m[d.Name] = r.classify(d.Name, d.Ready, d.LastHeartbeat, d.RegisteredAt, since, now)
	}
	r.fleet.seed(m)
	r.deadlines.seed(ds)
	return r.announce(ctx, len(ds))
}

// observe counts node n (read under name; absent when deleted) as it is
// at now.
//
// The deadlines take n before the count does: a recount from memory that
// copied the deadlines before n was taken finds the count set after it
// began, and keeps that verdict (tally.recount).
func (r *Reconciler) observe(n domain.Node, name string, now time.Time) {
	ready, _ := n.Condition(domain.ConditionReady)
	r.deadlines.observe(n, name)
	r.fleet.set(name, n.ExpectedToReport(), r.classify(name, ready.Status, n.LastHeartbeat, n.RegisteredAt, r.since(), now))
	r.checks.note(name, n)
}

// assess is the fleet as counted, to be judged by the threshold herd
// runs with.
func (r *Reconciler) assess() domain.AssessFleet {
	a := r.fleet.assessment()
	a.Threshold, a.LargeFleet, a.SecondaryRate = r.cfg.UnhealthyThreshold, r.cfg.LargeFleetThreshold, r.cfg.SecondaryEvictionRate
	return a
}

// recordFleet compares a with the fleet's recorded health, records a
// change of disruption state, and returns whether the fleet is disrupted.
func (r *Reconciler) recordFleet(ctx context.Context, a domain.AssessFleet) (bool, error) {
	f, err := r.view.FleetHealth(ctx)
	if err == nil && r.fleet.needsSeed() {
		// A fleet not read from the view yet is not judged: its count
		// holds only the nodes seen so far, and one silent node of one
		// counted would read as the whole fleet.
		return f.Disrupted, nil
	}
	if err != nil || a.IsDisrupted() == f.Disrupted {
		return a.IsDisrupted(), err
	}
	_, err = r.repo.FleetHealthCommands().Execute(ctx, domain.Key{}, a)
	if err == nil {
		r.log.Warn("fleet disruption state changed", zap.Bool("disrupted", a.IsDisrupted()),
			zap.Int("unreachable", a.Unreachable), zap.Int("total", a.Total))
	}
	return a.IsDisrupted(), err
}

// syncTaints makes one node's condition taints follow its conditions,
// with the NoExecute taints the fleet's state allows (pace). It decides
// on n as read
// and opens a write transaction only when there is something to change.
//
// Each taint change records as its cause the change it follows (see
// taintCauses): taints of different causes are synced one cause at a
// time, so that `herd node why` names the condition that turned, not
// whatever queued the node last.
func (r *Reconciler) syncTaints(ctx context.Context, n domain.Node, p noExecute) error {
	cmd := domain.SyncConditionTaints{WithholdNoExecute: p.withhold, DeferNoExecute: p.pause}
	now := r.clock.Now()
	if r.evictions.limited() {
		switch {
		case p.withhold:
			r.evictions.forget(n.Name)
		case p.pause:
			// A node waiting keeps its place for the pause's end.
		case !domain.WantsNewNoExecute(n):
			// It reported again, or carries its NoExecute taint: it
			// leaves the queue without using a turn, unless n may be a
			// read taken before its mark was written.
			r.evictions.settled(n, now, r.cfg.MonitorPeriod)
		case !r.evictions.turn(n.Name, now):
			cmd.DeferNoExecute = true
		}
	}
	evs, err := domain.DecideNode(n, cmd, now)
	if err != nil || len(evs) == 0 {
		return err
	}
	groups, err := r.taintCauses(ctx, n, evs)
	if err != nil {
		return err
	}
	for _, g := range groups {
		cctx := ctx
		if g.cause.ID != "" {
			cctx = reconcilers.Because(ctx, g.cause)
		}
		cmd.Only = g.only
		if _, err := r.repo.NodeCommands().Execute(cctx, domain.Key{Name: n.Name}, domain.IfExists[domain.NodeCommand]{Command: cmd}); err != nil {
			return err
		}
	}
	return nil
}

package health

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"herd/domain"
)

// markers bounds how many nodes one monitor pass marks at once. A unit of
// work that group-commits concurrent updates (ARCHITECTURE.md, "Writes are
// group-committed") turns that many updates in flight into few commits.
// Measured with 20,000 nodes falling silent together (herd loadgen
// --fall-silent): the last was marked 15 s late with 64, 8 s with 256,
// and no sooner with 512, half a group's worth.
const markers = 256

// monitor is one check of every node's deadline. It finds the silent nodes
// among the deadlines it keeps in memory, counts them as unreachable before
// marking any, and judges the fleet first, so that in a mass outage not one
// NoExecute taint goes on before herd has recognised the outage as its
// own. Then it marks them, many at once, each with its taints in the same
// update. Each mark carries the last heartbeat its node was judged by,
// and is decided again in the write against the node and its lease as
// committed (domain.MarkNodeUnreachable): a node heard from since, while
// the mark waited for its turn, is left Ready and watched from its newer
// heartbeat.
func (r *Reconciler) monitor(ctx context.Context) error {
	now := r.clock.Now()
	if err := r.seedIfNeeded(ctx); err != nil {
		return err
	}
	stale, verdicts, err := r.confirmStale(ctx, r.deadlines.stale(r.since(), now, r.cfg), now)
	if err != nil {
		return err
	}
	if err := r.recount(ctx, stale, now); err != nil {
		return err
	}
	assessment := r.assess()
	disrupted, err := r.recordFleet(ctx, assessment)
	if err != nil || len(stale) == 0 {
		return err
	}
	p := r.pace(disrupted, assessment)
	note := ""
	if disrupted {
		note = assessment.Note()
	}
	if p.adds() && r.evictions.limited() {
		// Under an eviction rate the nodes about to be marked wait for
		// their NoExecute taints in the order of their names, queued
		// before any mark, so that the reconciles the marks set off
		// cannot take a turn out of that order; a node that reported
		// meanwhile, or carried a NoExecute taint already, leaves the
		// queue when its turn comes.
		r.evictions.wait(slices.Sorted(slices.Values(stale)), now)
	}
	mark := func(name string) error {
		// A node deleted or stopped since the query is left alone. The
		// mark puts on the unreachable taints itself; a node that had
		// other condition taints, or a condition that calls for one, has
		// them synced in the same update.
		v := verdicts[name]
		m := domain.MarkNodeUnreachableSince(v.lastHeard)
		// Under an eviction rate no mark adds a NoExecute taint of its
		// own: the node waits for its turn (giveTurns, below).
		m.Note, m.WithholdNoExecute, m.DeferNoExecute = note, p.withhold, p.pause || r.evictions.limited()
		var cmd domain.NodeCommand = m
		if !v.plain {
			cmd = domain.NodeSequence{cmd, domain.SyncConditionTaints{WithholdNoExecute: p.withhold, DeferNoExecute: m.DeferNoExecute}}
		}
		n, err := r.repo.NodeCommands().Execute(ctx, domain.Key{Name: name}, domain.IfNodeReporting{Command: cmd})
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if ready, _ := n.Condition(domain.ConditionReady); n.ExpectedToReport() && ready.Status != domain.ConditionUnknown {
			// Heard from since the verdict: the mark wrote nothing. Its
			// deadline, its count in the fleet and its taint check are
			// the newer heartbeat's, read as committed (the one the mark
			// was decided against, or a later one).
			heardSince, err := heard(ctx, r.view, name)
			if err != nil {
				return err
			}
			r.observe(heardSince, name, now)
			return nil
		}
		// The deadlines first, as observe takes a node.
		r.deadlines.marked(name)
		r.fleet.set(name, true, unknown)
		r.checks.marked(name)
		r.log.Info("node stopped reporting", zap.String("node", name))
		return nil
	}
	// A node whose update failed in the crowd (a lock waited on too
	// long) is tried once more alone, so one slow commit does not leave
	// it unmarked until the next pass.
	var errs []error
	for _, name := range forEach(ctx, stale, markers, mark) {
		errs = append(errs, mark(name))
	}
	if err := errors.Join(errs...); err != nil || !p.adds() || !r.evictions.limited() {
		return err
	}
	_, err = r.giveTurns(ctx)
	return err
}

// recount brings the tally up to date with a monitor pass's findings: the
// stale nodes count as silent, and a node the tally still holds silent
// that is no longer stale (it reported, or was marked, stopped or deleted)
// is read again. Those are the nodes that changed since the last pass, not
// the fleet.
func (r *Reconciler) recount(ctx context.Context, stale []string, now time.Time) error {
	isStale := make(map[string]bool, len(stale))
	for _, name := range stale {
		isStale[name] = true
	}
	for _, name := range r.fleet.silentNames() {
		if isStale[name] {
			continue
		}
		n, err := heard(ctx, r.view, name)
		if err != nil {
			return err
		}
		r.observe(n, name, now)
	}
	for _, name := range stale {
		r.fleet.set(name, true, silent)
	}
	return nil
}

// forEach runs do for every name, at most limit at a time, and returns the
// names it failed for. A failure does not stop the others: one node's
// conflict must not leave the rest of an outage unmarked.
func forEach(ctx context.Context, names []string, limit int, do func(string) error) []string {
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []string
		sem    = make(chan struct{}, limit)
	)
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := do(name); err != nil {
				mu.Lock()
				failed = append(failed, name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

// verdict is what a monitor pass judged a stale node by.
type verdict struct {
	// lastHeard is the node's last heartbeat, by its own reports or its
	// lease's renewals, as judged: the mark is a no-op if the node has a
	// later one committed by the time it is written.
	lastHeard time.Time
	// plain says the node's only condition taints, once marked, are
	// those the mark puts on (plainToMark).
	plain bool
}

// confirmStale keeps, of the nodes the deadlines in memory call silent,
// those the view says are: a heartbeat the dispatcher has not handed
// over yet (it follows the log a little behind the commits) must not get
// a node marked, nor counted against the fleet. Nor must a heartbeat
// herd received that still waits for its write, nor a silence no longer
// than herd's own writes are behind (silence.go). It reads one row per
// candidate, which in a quiet fleet is none. verdicts has, for each
// stale node, what it was judged by.
func (r *Reconciler) confirmStale(ctx context.Context, candidates []string, now time.Time) (stale []string, verdicts map[string]verdict, err error) {
	var held []string
	verdicts = map[string]verdict{}
	for _, name := range candidates {
		n, err := heard(ctx, r.view, name)
		if err != nil {
			return nil, nil, err
		}
		r.deadlines.observe(n, name)
		r.checks.note(name, n)
		ready, _ := n.Condition(domain.ConditionReady)
		if !n.ExpectedToReport() || ready.Status == domain.ConditionUnknown {
			continue
		}
		switch silent, ownDelay := r.silent(name, n.LastHeartbeat, n.RegisteredAt, r.since(), now); {
		case silent:
			stale = append(stale, name)
			verdicts[name] = verdict{lastHeard: n.LastHeartbeat, plain: plainToMark(n)}
		case ownDelay:
			held = append(held, name)
		}
	}
	r.noteHeld(held)
	return stale, verdicts, nil
}

// plainToMark says whether node n, as read, has its condition taints right
// once marked by the mark alone: Ready True, no condition taint on, no
// condition that calls for one but Ready. Syncing its taints after the
// mark would change nothing; a change to the node between the read and
// the mark is an event of the node's, whose reconcile syncs them.
func plainToMark(n domain.Node) bool {
	if needsTaintCheck(n) {
		return false
	}
	c, _ := n.Condition(domain.ConditionNetworkUnavailable)
	return c.Status != domain.ConditionTrue
}

package reconcilers

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"herd/events"
)

// Job is the name under which the replicas sharing a log elect the one
// that runs the reconcilers: herd_leader's job label.
const Job = "reconcilers"

// leadRetry is how often a replica that does not lead the reconcilers
// asks to: another replica takes over within this of PostgreSQL freeing
// a dead leader's lock. It is wall-clock time, as the follower's polls
// are: it paces questions to a database, not the domain's clock.
const leadRetry = 2 * time.Second

// stepAside is how long a replica that lost the lead waits before it asks
// again: longer than leadRetry, so that the others, which ask every
// leadRetry, have the first turn. A replica whose session just failed
// may well fail again; the lead should not bounce back to it.
const stepAside = 2 * leadRetry

// Leading reports whether the reconcilers run on this replica now: it
// leads them.
func (m *Manager) Leading() bool { return m.leading.Load() }

// Leader says which replica leads the reconcilers (Self when this one
// does); ok is false when none does now: the one that did has gone and
// no other has taken over yet.
func (m *Manager) Leader(ctx context.Context) (leader events.Leader, ok bool, err error) {
	return m.leadership.Leader(ctx, Job)
}

// lead runs the reconcilers for each term this replica leads them, until
// ctx ends: term and run are the term under way, or nil to ask for one.
// When a term is lost the reconcilers stop, and run again, afresh and
// from the dispatcher's saved position, once this replica leads again.
func (m *Manager) lead(ctx context.Context, term events.Term, run *termRun) {
	var wait time.Duration // before asking: none at start
	for {
		if term == nil {
			if term, run = m.campaign(ctx, wait); term == nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			// The dispatcher saves its position before the lead goes:
			// whoever leads next resumes there.
			m.end(run)
			if err := term.Release(); err != nil {
				m.log.Warn("letting go of the reconcilers' lead", zap.Error(err))
			}
			return
		case <-term.Lost():
			m.log.Warn("this replica no longer leads the reconcilers; they stop here until it leads them again")
			m.end(run)
			_ = term.Release()
			term, run, wait = nil, nil, stepAside
		}
	}
}

// campaign asks to lead the reconcilers, after wait and then every
// leadRetry, until this replica does and they run, or ctx ends (nil,
// nil).
func (m *Manager) campaign(ctx context.Context, wait time.Duration) (events.Term, *termRun) {
	if wait > 0 {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(wait):
		}
	}
	tick := time.NewTicker(leadRetry)
	defer tick.Stop()
	var told error // what was logged last, so that a wait is logged once
	for {
		term, err := m.leadership.TryLead(ctx, Job)
		switch {
		case err == nil:
			run, err := m.begin(ctx)
			if err == nil {
				return term, run
			}
			m.log.Error("the reconcilers could not start; letting go of the lead to try again", zap.Error(err))
			_ = term.Release()
			told = nil
		case ctx.Err() != nil:
			return nil, nil
		case errors.Is(err, events.ErrLedElsewhere):
			if !errors.Is(told, events.ErrLedElsewhere) {
				who, _, _ := m.leadership.Leader(ctx, Job)
				m.log.Info("another replica leads the reconcilers; this one takes over if it goes",
					zap.String("leader", who.Replica), zap.Time("since", who.Since))
			}
			told = err
		default:
			if told == nil || errors.Is(told, events.ErrLedElsewhere) {
				m.log.Warn("cannot ask to lead the reconcilers; asking again", zap.Error(err), zap.Duration("every", leadRetry))
			}
			told = err
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-tick.C:
		}
	}
}

// termRun is what runs while this replica leads: the runners and the
// dispatcher that feeds them.
type termRun struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// begin launches the runners of a term, and the dispatcher when there is
// a log and a reconciler to feed, and returns once they run.
func (m *Manager) begin(ctx context.Context) (*termRun, error) {
	m.mu.Lock()
	if m.ran {
		m.runners = m.newRunners()
	}
	m.ran = true
	runners := m.runners
	m.mu.Unlock()

	m.beginTerm()
	ctx, cancel := context.WithCancel(ctx)
	run := &termRun{cancel: cancel}
	if m.eventLog != nil && len(runners) > 0 {
		d := &dispatcher{eventLog: m.eventLog, runners: runners, log: m.log, metrics: m.metrics}
		msgs, err := d.subscribe(ctx)
		if err != nil {
			cancel()
			for _, rn := range runners {
				rn.queue.ShutDown()
			}
			return nil, err
		}
		run.wg.Go(func() { d.run(msgs) })
	}
	for _, rn := range runners {
		run.wg.Go(func() { rn.run(ctx) })
	}
	m.leading.Store(true)
	m.metrics.leader.WithLabelValues(Job).Set(1)
	m.log.Info("reconcilers running", zap.Strings("reconcilers", m.Running()))
	return run, nil
}

// end stops a term's runners and dispatcher and waits for them.
func (m *Manager) end(run *termRun) {
	run.cancel()
	run.wg.Wait()
	m.leading.Store(false)
	m.metrics.leader.WithLabelValues(Job).Set(0)
}

// Package whatif runs herd's own reconcilers on the past: a window of the
// log again, under other settings or with other inputs, and says what
// would have been different.
//
// The simulation is herd itself. It copies the log up to the window's
// start into a log of its own (a temporary SQLite file), starts herd's
// engine on it as `herd serve` wires it (app.SimulationOptions: every
// reconciler — health, NoExecute, the scheduler, drains, disruption
// budgets, Deployments, ReplicaSets, DaemonSets, Jobs, IP addresses and
// the rest — without the API listener) on a fake clock, and feeds it the
// window's inputs at their recorded times: what nodes, agents, kubelets
// and operators sent, told apart from what herd's reconcilers decided by
// the actor each event records (a reconciler writes as system:herd:NAME).
// The reconcilers decide everything else again. The clock moves from
// input to input in steps no longer than Config.Step, and at each step
// the engine waits until every reconciler has done what the step gave it:
// the reconcilers do not know they run in the past.
//
// herd's own downtime is an input: the log records every start of the
// health rules (domain.HealthMonitorStarted), and the simulation stops
// herd where the real one stopped and starts it again where it started,
// so that every node gets a full grace period from that start, as it did.
package whatif

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.uber.org/fx"
	"k8s.io/utils/clock"

	"herd/adapters/mockruntime"
	"herd/cmd/herd/app"
	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// Config is one what-if question: the window, herd's settings in it, and
// the inputs changed.
type Config struct {
	// Since is the window's start: the fleet as it stood then is the
	// simulation's start.
	Since time.Time
	// Until is the window's end; zero is the log's newest event.
	Until time.Time
	// Serve are herd's settings in the simulation: app.DefaultConfig()
	// with the settings asked about (grace periods, eviction timings,
	// the scheduler's policy, which reconcilers run). What reaches
	// outside herd (the listener, kubelet probes, a local node) is
	// switched off whatever it says.
	Serve app.Config
	// Step, when set, is the longest the simulated clock moves at once;
	// zero moves it from each time something waits for (a reconciler's
	// timer or resync, an input) to the next.
	Step time.Duration
	// Failed are nodes that fail in the what-if: from its time, nothing
	// the node sent reaches herd.
	Failed []NodeFailure
	// Drains are drains an operator starts in the what-if.
	Drains []Drain
	// Budgets are changes an operator makes to PodDisruptionBudgets in
	// the what-if.
	Budgets []BudgetChange
	// EvictionRetry is how often a client whose eviction a budget
	// refused in the what-if asks again, until it is granted or the
	// window ends: nil is DefaultEvictionRetry, kubectl drain's; 0 has
	// a client ask once.
	EvictionRetry *time.Duration
	// Limit is how many of the decisions only one run made the report
	// lists of each kind (Report.Missing, Report.Extra): the first by
	// time, with their causes. Their counts are always whole. Zero is
	// DefaultLimit.
	Limit int
}

// DefaultEvictionRetry is how often a client asks again for an eviction
// a budget refused: kubectl drain's interval (it waits 5 s after a 429
// and asks again, until its --timeout, by default never).
const DefaultEvictionRetry = 5 * time.Second

// evictionRetry is c's EvictionRetry: its default when not given, and
// zero for a client that asks once.
func (c Config) evictionRetry() time.Duration {
	if c.EvictionRetry == nil {
		return DefaultEvictionRetry
	}
	return max(*c.EvictionRetry, 0)
}

// DefaultLimit is how many decisions of each kind a report lists when
// its question does not say.
const DefaultLimit = 100

// NodeFailure is a node that falls silent at a time: an input removed.
type NodeFailure struct {
	Node string
	At   time.Time
}

// Drain is an operator draining a node at a time: an input added.
type Drain struct {
	Node string
	At   time.Time
}

// BudgetChange is an operator changing a PodDisruptionBudget at a time
// ("what if this budget had been minAvailable 2"): an input added. One
// of MinAvailable and MaxUnavailable is set, and the budget keeps that
// one only, as an edit of its spec would; the rest of the budget stays
// as the log has it then.
type BudgetChange struct {
	Namespace, Name              string
	MinAvailable, MaxUnavailable *domain.IntOrPercent
	// At is when; zero is the window's start.
	At time.Time
}

// String is the change as the answer names it: "default/web minAvailable 2".
func (b BudgetChange) String() string {
	if b.MinAvailable != nil {
		return fmt.Sprintf("%s/%s minAvailable %s", b.Namespace, b.Name, b.MinAvailable)
	}
	return fmt.Sprintf("%s/%s maxUnavailable %s", b.Namespace, b.Name, b.MaxUnavailable)
}

// check says what is wrong with the change, if anything.
func (b BudgetChange) check() error {
	switch {
	case b.Namespace == "" || b.Name == "":
		return fmt.Errorf("a budget's change needs its namespace and name, not %q", b.Namespace+"/"+b.Name)
	case (b.MinAvailable == nil) == (b.MaxUnavailable == nil):
		return fmt.Errorf("budget %s/%s: give minAvailable or maxUnavailable, one of them", b.Namespace, b.Name)
	}
	for _, v := range []*domain.IntOrPercent{b.MinAvailable, b.MaxUnavailable} {
		if v != nil && (v.Value < 0 || v.Percent && v.Value > 100) {
			return fmt.Errorf("budget %s/%s: %s is not a count of pods or a percentage from 0%% to 100%%", b.Namespace, b.Name, v)
		}
	}
	return nil
}

// InputError is an input the what-if adds that it cannot add: the
// Index-th of the question's Field ("budgets", "drains" or
// "nodeFailures": Config.Budgets, Drains, Failed), which the asker got
// wrong (no name, a budget the log has no such budget at its time, a
// time outside the window).
type InputError struct {
	Field string
	Index int
	Err   error
}

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// WhatIfActor is who the inputs the what-if adds are recorded as.
const WhatIfActor = "what-if"

// ThinnedError is a window that reaches back before the retention policy
// thinned the heartbeats: the what-if needs every one.
type ThinnedError struct {
	Since, Before time.Time
}

func (e *ThinnedError) Error() string {
	return fmt.Sprintf("the window from %s reaches back before %s, before which the retention policy has thinned the heartbeats; a what-if needs every heartbeat of its window: start it after %s, or keep heartbeats longer (--heartbeat-retention)",
		e.Since.Format(time.RFC3339), e.Before.Format(time.RFC3339), e.Before.Format(time.RFC3339))
}

// settleTimeout bounds the wait for the reconcilers to finish one step.
const settleTimeout = time.Minute

// settleFirstWait and settleLongestWait bound the pause between two looks
// at the reconcilers while they settle (wall time).
const (
	settleFirstWait   = 50 * time.Microsecond
	settleLongestWait = 500 * time.Microsecond
)

// Run asks the question cfg on the log source, which it reads and never
// writes, and reports how the simulated window differs from the real one.
func Run(ctx context.Context, source events.Log, cfg Config) (Report, error) {
	if cfg.Step < 0 {
		return Report{}, fmt.Errorf("a what-if's step %s is negative", cfg.Step)
	}
	if cfg.Limit < 0 {
		return Report{}, fmt.Errorf("a what-if's limit of decisions listed, %d, is negative", cfg.Limit)
	}
	limit := cfg.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if err := cfg.Serve.Health.Validate(); err != nil {
		return Report{}, err
	}
	if err := cfg.Serve.Scheduler.Validate(); err != nil {
		return Report{}, err
	}
	if c := source.Compaction(); c.Deleted > 0 && cfg.Since.Before(c.Before) {
		return Report{}, &ThinnedError{Since: cfg.Since, Before: c.Before}
	}
	start, err := source.Query(ctx, events.Filter{Until: cfg.Since, Limit: 1, Newest: true})
	if err != nil {
		return Report{}, err
	}
	var from int64
	if len(start) == 1 {
		from = start[0].Position
	}
	window, err := readWindow(ctx, source, from, cfg.Until)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Since: cfg.Since, From: from + 1, To: from, Events: len(window)}
	if len(window) > 0 {
		rep.To = window[len(window)-1].Position
		rep.Until = window[len(window)-1].RecordedAt
	}
	if !cfg.Until.IsZero() {
		rep.Until = cfg.Until
	}
	if rep.Until.Before(cfg.Since) {
		rep.Until = cfg.Since
	}
	open := cfg.Until.IsZero()
	newest := maxTime(cfg.Since, lastRecorded(window))
	if !open && cfg.Until.After(newest.Add(cfg.Serve.Health.GracePeriod)) {
		// An end asked for more than a grace period past the window's
		// newest event, with nothing recorded after it: the log ends in
		// the window, and the window is taken as open.
		later, err := source.Query(ctx, events.Filter{After: rep.To, Limit: 1})
		if err != nil {
			return Report{}, err
		}
		if open = len(later) == 0; open {
			rep.Cut = &WindowCut{Asked: cfg.Until, LogEnd: newest}
		}
	}
	end := ""
	if open {
		// A window open to now ends at the log's newest event. An input
		// the question adds a little after it extends the window to it:
		// while herd runs, its log is never silent for a grace period
		// (nodes report, or herd marks those that do not), so a
		// silence that short is the fleet's as herd saw it. One longer
		// is herd down (or stopped since), or a time ahead of its log:
		// the what-if cannot know the fleet then, does not take herd's
		// silence for the fleet's, and refuses an input in it.
		rep.Until = maxTime(newest, minTime(cfg.lastInput(), newest.Add(cfg.Serve.Health.GracePeriod)))
		end = fmt.Sprintf(" (the log's newest event, %s, and a grace period: herd recorded nothing after it; it was down, or the time is ahead of its log)",
			newest.UTC().Format(time.RFC3339))
	}
	ss, err := starts(ctx, source, from)
	if err != nil {
		return Report{}, err
	}
	if rep.Downtimes, err = downtimes(ctx, source, ss, from, rep.Until); err != nil {
		return Report{}, err
	}
	if err := cfg.checkInputs(rep.Until, end); err != nil {
		return Report{}, err
	}
	cfg.Budgets = slices.Clone(cfg.Budgets) // defaulted: the caller's stay as asked
	for i, b := range cfg.Budgets {
		if b.At.IsZero() {
			cfg.Budgets[i].At = cfg.Since
		}
	}

	// The simulation's log: in memory (a tmpfs) where the machine has
	// room for it there.
	dir, err := os.MkdirTemp(defaultScratchRoot(), "herd-what-if-*")
	if err != nil {
		// A tmpfs this process may not write to: the disk, then.
		if dir, err = os.MkdirTemp("", "herd-what-if-*"); err != nil {
			return Report{}, err
		}
	}
	defer func() { _ = os.RemoveAll(dir) }() // a scratch directory: what is left is the system's to clear
	path := filepath.Join(dir, events.DatabaseFileName)
	if _, err := seed(ctx, source, from, cfg.Since, path); err != nil {
		return Report{}, err
	}
	s := &simulation{cfg: cfg, dir: dir, clock: newSimClock(cfg.Since), downtimes: rep.Downtimes}
	s.window = window
	inputs := s.plan(window)
	for _, in := range inputs {
		if len(in.recs) > 0 { // the window's own, not those the what-if adds
			rep.Inputs++
		}
	}
	if err := s.run(ctx, inputs, watchingSince(ss, cfg.Since), rep.Until); err != nil {
		return Report{}, err
	}
	rep.Orphans = s.orphans
	rep.RefusedEvictions = s.refused
	// The answer reads both windows again, a page at a time.
	s.window = nil
	store, err := events.Open(ctx, events.Config{Path: path, Scratch: true}, nil)
	if err != nil {
		return Report{}, err
	}
	defer func() { _ = store.Log().Close() }() // read only
	simHead, err := store.Log().Head(ctx)
	if err != nil {
		return Report{}, err
	}
	simLog := newCauseLog(store.Log())
	real := span{log: source, after: from, upTo: rep.To}
	simulated := span{log: store.Log(), after: s.seedHead, upTo: simHead}
	realNames, simNames, err := rep.compare(ctx, real, simulated, simLog, limit)
	if err != nil {
		return Report{}, err
	}
	if err := rep.availability(ctx, source, simLog, realNames, simNames); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// checkInputs checks the inputs the question adds against its window,
// which ends at until: each names its node or budget, and falls within
// the window (a node may have failed before it: it is silent throughout).
// An input after the window's end would change nothing in it; a drain or
// a budget's change before its start would be made at the start instead.
// why, when set, says how the end was found.
func (c Config) checkInputs(until time.Time, why string) error {
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	within := func(what string, at time.Time, beforeOK bool) error {
		switch {
		case at.After(until):
			return fmt.Errorf("%s at %s, after the window's end %s%s: nothing in the window would follow it", what, stamp(at), stamp(until), why)
		case !beforeOK && at.Before(c.Since):
			return fmt.Errorf("%s at %s, before the window's start %s", what, stamp(at), stamp(c.Since))
		}
		return nil
	}
	for i, f := range c.Failed {
		err := errors.New("a failed node needs a name")
		if f.Node != "" {
			err = within("node "+f.Node+" fails", f.At, true)
		}
		if err != nil {
			return &InputError{Field: "nodeFailures", Index: i, Err: err}
		}
	}
	for i, d := range c.Drains {
		err := errors.New("a drained node needs a name")
		if d.Node != "" {
			err = within("node "+d.Node+" drained", d.At, false)
		}
		if err != nil {
			return &InputError{Field: "drains", Index: i, Err: err}
		}
	}
	for i, b := range c.Budgets {
		err := b.check()
		if err == nil && !b.At.IsZero() {
			err = within("budget "+b.Namespace+"/"+b.Name+" changed", b.At, false)
		}
		if err != nil {
			return &InputError{Field: "budgets", Index: i, Err: err}
		}
	}
	return nil
}

// lastRecorded is when the newest of the window's events was recorded;
// zero for none.
func lastRecorded(window []events.Record) time.Time {
	if len(window) == 0 {
		return time.Time{}
	}
	return window[len(window)-1].RecordedAt
}

// lastInput is the time of the latest input the question adds.
func (c Config) lastInput() time.Time {
	var last time.Time
	for _, f := range c.Failed {
		last = maxTime(last, f.At)
	}
	for _, d := range c.Drains {
		last = maxTime(last, d.At)
	}
	for _, b := range c.Budgets {
		last = maxTime(last, b.At)
	}
	return last
}

// readWindow reads the log's events after position from, up to until
// (zero: to the end).
func readWindow(ctx context.Context, log events.LogReader, from int64, until time.Time) ([]events.Record, error) {
	var out []events.Record
	for {
		recs, err := log.ReadAfter(ctx, from, seedBatch)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if !until.IsZero() && r.RecordedAt.After(until) {
				return out, nil
			}
			out = append(out, r)
		}
		if len(recs) < seedBatch {
			return out, nil
		}
		from = recs[len(recs)-1].Position
	}
}

// simulation is one run of herd's engine on the what-if's log.
type simulation struct {
	cfg       Config
	dir       string
	clock     *simClock
	downtimes []Downtime
	seedHead  int64
	// started is set once the engine has started: a later start is
	// herd's own after its downtime.
	started bool

	app     *fx.App
	log     events.Log
	recs    *reconcilers.Manager
	writer  *projections.Writer
	nodes   *projections.NodeView
	budgets *projections.PodDisruptionBudgetView
	pods    *projections.PodView
	// terms are the reconcilers that count time from herd's start.
	terms []reconcilers.TermStarter
	// settler predicts each reconciler's resync ticks on the simulated
	// clock and tells when they have all settled.
	settler *reconcilers.Settler
	// ready is each node's Ready as the real log had it, input by input:
	// window is the real log's window, followed up to cursor.
	ready  readiness
	window []events.Record
	cursor int
	// realPods are the pods the real window's workload reconcilers
	// created, each with its owner's name and "*"; realOrder, per owner,
	// in the order they were created. orphans counts the inputs about
	// such pods that the simulation never made.
	realPods  map[string]string
	realOrder map[string][]string
	orphans   int
	// refused are the evictions clients asked for that the pods' budgets
	// refused in the what-if; retries, the clients' next asks, by time.
	refused []RefusedEviction
	retries []input
	// until is the window's end: no client asks again after it.
	until time.Time
}

// serveConfig is cfg.Serve made safe to run on the what-if's log: on its
// own data directory, reaching nothing outside.
func (s *simulation) serveConfig() app.Config {
	c := s.cfg.Serve
	c.DataDir = s.dir
	c.Database = ""
	c.Listen = "127.0.0.1:0"
	c.LogLevel = "error"
	c.KubeconfigPath = "-"
	c.Demo = 0
	c.LocalNode.Name = ""
	c.KubeletProbe.Kinds = nil
	// A scratch log: no fsync per commit, no check of the seeded file.
	c.ScratchLog = true
	// The dispatcher is woken by every commit of the simulation's own;
	// the fallback poll is wall time and only bounds a missed wake-up.
	c.PollInterval = 10 * time.Millisecond
	return c
}

// start starts herd's engine on the what-if's log at the clock's time.
// since, when set, is when the health rules' term began in the real log:
// a start of the simulation is not a start of herd.
func (s *simulation) start(ctx context.Context, since time.Time) error {
	var terms struct {
		fx.In
		All []reconcilers.Reconciler `group:"reconcilers"`
	}
	first := !s.started
	s.started = true
	s.app = fx.New(app.SimulationOptions(s.serveConfig(),
		fx.Decorate(func(clock.WithTicker) clock.WithTicker { return s.clock }),
		fx.Decorate(func(rt *mockruntime.Runtime, pods *projections.PodView) (*mockruntime.Runtime, error) {
			if !first {
				return rt, nil // a start after herd's downtime: herd's mock came back empty too
			}
			return rt, adoptPods(context.WithoutCancel(ctx), rt, pods)
		}),
		fx.Populate(&s.log, &s.recs, &s.writer, &s.nodes, &s.budgets, &s.pods, &terms),
		fx.NopLogger,
	))
	if err := s.app.Err(); err != nil {
		return fmt.Errorf("the what-if's herd: %w", err)
	}
	startCtx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	if err := s.app.Start(startCtx); err != nil {
		return fmt.Errorf("start the what-if's herd: %w", err)
	}
	s.terms = s.terms[:0]
	for _, r := range terms.All {
		if t, ok := r.(reconcilers.TermStarter); ok && slices.Contains(s.recs.Running(), r.Name()) {
			s.terms = append(s.terms, t)
		}
	}
	if !since.IsZero() && since.Before(s.clock.Now()) {
		for _, t := range s.terms {
			t.BeginTerm(since)
		}
	}
	// Every write to the what-if's log is this process's own, so the head
	// its commits announced is the log's head.
	s.settler = reconcilers.NewSettler(s.recs, s.clock.Now(), func(context.Context) (int64, error) {
		head, _ := s.log.CommitSignal()
		return head, nil
	})
	s.settler.FirstWait, s.settler.LongestWait = settleFirstWait, settleLongestWait
	s.settler.Timeout, s.settler.LookAtOnce = settleTimeout, true
	s.settler.YieldWhenQuiet = true
	return s.settle(ctx)
}

// adoptPods gives the what-if's mock runtime, before any reconciler
// runs, the pods herd serve's mock runtime ran at the window's start, as
// their statuses record them: the window's start is no restart of herd,
// and an empty mock would have the zones reconciler start every running
// pod again. The pods of nodes the mock does not run (an agent's, a
// kubelet's) are never asked of it.
func adoptPods(ctx context.Context, rt *mockruntime.Runtime, pods *projections.PodView) error {
	herd := domain.SourceHerd
	all, _, err := pods.List(ctx, projections.PodFilter{Source: &herd})
	if err != nil {
		return fmt.Errorf("the what-if's pods at its start: %w", err)
	}
	for _, p := range all {
		rt.Adopt(p)
	}
	return nil
}

// stop stops herd's engine, as herd stopped.
func (s *simulation) stop(ctx context.Context) error {
	if s.app == nil {
		return nil
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	err := s.app.Stop(stopCtx)
	s.app, s.recs = nil, nil
	s.clock.forget() // what the stopped engine waited for waits no more
	return err
}

// run feeds the inputs at their times, stepping the clock, from the
// window's start to until.
func (s *simulation) run(ctx context.Context, inputs []input, since, until time.Time) (err error) {
	s.until = until
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(s.dir, events.DatabaseFileName), Scratch: true}, nil)
	if err != nil {
		return err
	}
	s.seedHead, err = store.Log().Head(ctx)
	_ = store.Log().Close()
	if err != nil {
		return err
	}
	if err := s.start(ctx, since); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.stop(ctx)) }()
	if err := s.ready.load(ctx, s.nodes); err != nil {
		return err
	}
	for _, in := range inputs {
		if err := s.retry(ctx, in.at); err != nil {
			return err
		}
		if err := s.advance(ctx, in.at); err != nil {
			return err
		}
		if err := s.feed(ctx, in); err != nil {
			return err
		}
		if err := s.settle(ctx); err != nil {
			return err
		}
	}
	if err := s.retry(ctx, until); err != nil {
		return err
	}
	return s.advance(ctx, until)
}

// retry asks again, in time order, the evictions clients ask again up to
// t (evict): those due at t itself before t's input, since they were
// due first.
func (s *simulation) retry(ctx context.Context, t time.Time) error {
	for len(s.retries) > 0 && !s.retries[0].at.After(t) {
		in := s.retries[0]
		s.retries = s.retries[1:]
		if err := s.advance(ctx, in.at); err != nil {
			return err
		}
		if err := s.evict(events.WithMetadata(ctx, in.md), in); err != nil {
			return err
		}
		if err := s.settle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// advance moves the clock to t in steps, waiting at each for the
// reconcilers; across herd's downtime it stops herd where it stopped and
// starts it where it started.
func (s *simulation) advance(ctx context.Context, t time.Time) error {
	for s.clock.Now().Before(t) {
		// A long window whose steps reach no reconciler's timer never
		// waits in settle: the caller's deadline is looked at here too.
		if err := ctx.Err(); err != nil {
			return err
		}
		now := s.clock.Now()
		next := t
		if due, ok := s.clock.next(now); ok && due.Before(next) {
			next = due
		}
		if s.cfg.Step > 0 {
			next = minTime(next, now.Add(s.cfg.Step))
		}
		if d, ok := s.downtimeWithin(now, next); ok {
			if err := s.moveClock(ctx, maxTime(now, d.From)); err != nil {
				return err
			}
			if err := s.stop(ctx); err != nil {
				return err
			}
			s.clock.SetTime(d.Until)
			if err := s.start(ctx, time.Time{}); err != nil {
				return err
			}
			continue
		}
		if err := s.moveClock(ctx, next); err != nil {
			return err
		}
	}
	return nil
}

// downtimeWithin is the downtime that a step from from to to enters, if
// any.
func (s *simulation) downtimeWithin(from, to time.Time) (Downtime, bool) {
	for _, d := range s.downtimes {
		if d.From.Before(to) && d.Until.After(from) && d.From.Before(d.Until) {
			return d, true
		}
	}
	return Downtime{}, false
}

// moveClock moves the clock to t and waits for the resyncs it causes.
// A move that reaches no timer or ticker made on the clock gives the
// reconcilers nothing to do (they were settled, and nothing of theirs
// waits for a time up to t), so it needs no wait: between two inputs a
// few milliseconds apart that is most moves.
func (s *simulation) moveClock(ctx context.Context, t time.Time) error {
	now := s.clock.Now()
	if !t.After(now) {
		return nil
	}
	due, ok := s.clock.next(now)
	s.clock.SetTime(t)
	s.settler.ClockMoved(t)
	if !ok || due.After(t) {
		return nil
	}
	return s.settle(ctx)
}

// settle waits until every reconciler has done the resyncs the clock
// asked for, has read the whole log, and has nothing left to do. It
// looks at once, and then at short intervals that grow while the
// reconcilers stay busy: most steps give them a reconcile or two, done
// in well under a millisecond.
func (s *simulation) settle(ctx context.Context) error {
	if err := s.settler.Settle(ctx); err != nil {
		return fmt.Errorf("the what-if at %s: %w", s.clock.Now().UTC().Format(time.RFC3339), err)
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

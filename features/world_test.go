package features

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"time"

	"github.com/cucumber/godog"
	"go.uber.org/fx"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/kubelet"
	"herd/adapters/mockruntime"
	"herd/cmd/herd/app"
	"herd/cmd/herd/whatif"
	"herd/events"
	"herd/events/pgtest"
	"herd/projections"
	"herd/reconcilers"
)

// defaultEpoch is where a scenario's clock stands until its Background
// says otherwise: a whole second, because Kubernetes timestamps have no
// finer grain.
var defaultEpoch = time.Date(2026, time.March, 1, 9, 0, 0, 0, time.UTC)

// Timeouts for the world's own machinery. They bound how long a broken
// herd can hang a scenario; a healthy one answers in milliseconds.
const (
	startStopTimeout = 30 * time.Second
	requestTimeout   = 10 * time.Second
)

// world is everything one scenario runs against: its own data directory,
// its own fake clock, its own herd, and what the operator has seen so far.
type world struct {
	// database, when set, makes the scenario's herd its --database (a
	// fresh PostgreSQL database, db, dropped when the scenario ends);
	// else herd keeps its log in dir.
	database func() (*pgtest.Database, error)
	db       *pgtest.Database
	dir      string
	clock    *clocktesting.FakeClock
	app      *fx.App
	server   *app.HTTPServer
	// whatIfAnswer is the report of the last what-if asked of herd's API.
	whatIfAnswer *whatif.Report
	// whatIfAgain, whatIfAgainSince and whatIfAgainOf are the last
	// budget's what-if asked of the engine, for a step that asks it
	// again with one thing changed: its change, its window's start, and
	// the budget and owner it is about.
	whatIfAgain      func(*whatif.Config) error
	whatIfAgainSince string
	whatIfAgainOf    [2]string
	log              events.Log
	// store is the SQLite store behind log; nil on PostgreSQL.
	store  *events.Store
	client *http.Client
	// cfg is what herd runs with in this scenario.
	cfg app.Config
	// mock is herd's in-process mock runtime, which runs the pods of
	// nodes without an agent of their own.
	mock *mockruntime.Runtime
	// recs runs herd's reconcilers; nil in features tagged
	// @without-reconcilers, which specify what requests do by themselves.
	recs *reconcilers.Manager
	// kubelets polls the scenario's simulated kubelets, sims.
	kubelets *kubelet.Manager
	sims     map[string]*simKubelet
	// settler predicts each reconciler's resync ticks on the fake clock,
	// so that a step can wait until the ticks it caused are handled.
	settler *reconcilers.Settler

	// configure, when set, changes what herd runs with before it starts
	// (a test's own settings, such as a demo fleet).
	configure func(*app.Config)

	// epoch is when herd was started in this scenario; a clock time such
	// as "09:00:20" in a step means that time on the epoch's day.
	epoch time.Time
	// last is the answer to the latest request that could change herd.
	last response
	// before is the log as it stood just before that request.
	before logMark
	// startErr is why herd refused to start, in a scenario that expects
	// it to.
	startErr error
	// agents remembers, per node, what its agent registered with and the
	// metrics it reported last, as a real agent would.
	agents map[string]*agent
	// auth holds the tokens requests carry, when herd requires them.
	auth auth
	// devices are the simulated Picos and herd's device listener.
	devices devices
	// freeDisk lifts the full disk a scenario made, if it made one.
	freeDisk func() error
	// kubectlLast is how the operator's latest kubectl command ended.
	kubectlLast kubectlRun
	// read holds ConfigMaps as a client read them, for its later writes.
	read map[string]corev1.ConfigMap
	// watching holds a client's open watch and paged listing.
	watching watching
	// evicted are the pods a client evicted, in order.
	evicted []string
	// zones is the simulated illumos host of herd's own node, when the
	// scenario runs one.
	zones *zoneHost
	// agent is the scenario's in-process `herd agent`, when it runs one.
	agent *agentProc
	// compactor is herd's heartbeat retention policy; beforeRetention is
	// the log as it stood before the scenario's last round of it.
	compactor       *projections.Compactor
	beforeRetention []events.Record
	// writer is herd's unit of work, whose write path a scenario can
	// stall; stall holds what it stalled.
	writer *projections.Writer
	stall  stall
}

// start gives the scenario a fresh herd: a new data directory, a fake
// clock, and the real fx app of `herd serve` listening on a free loopback
// port.
func (w *world) start(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	dir, err := os.MkdirTemp("", "herd-features-*")
	if err != nil {
		return ctx, err
	}
	w.dir = dir
	w.clock = clocktesting.NewFakeClock(defaultEpoch)
	w.epoch = defaultEpoch
	w.agents = map[string]*agent{}
	w.client = &http.Client{Timeout: requestTimeout, Transport: &http.Transport{}}

	cfg := app.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.DataDir = dir
	if w.database != nil {
		if w.db, err = w.database(); err != nil {
			return ctx, err
		}
		cfg.Database = w.db.URL
	}
	cfg.LogLevel = "error"
	// herd's own writes wake the reconcilers at once; a short fallback
	// poll keeps anything a commit did not announce quick too.
	cfg.PollInterval = 10 * time.Millisecond
	// The heartbeat retention policy runs when a step says so ("herd's
	// heartbeat retention runs"), not on its timer, so that what a
	// scenario's log holds does not depend on how far its clock moved.
	cfg.Compaction.Interval = 24 * time.Hour
	switch {
	case hasTag(sc, "@without-reconcilers"):
		cfg.Reconcilers.Enabled = nil
	case hasTag(sc, "@health-off"):
		cfg.Reconcilers.Enabled = []string{"*", "-health"}
	}
	// herd probes kubelet endpoints on the wall clock's network: only
	// scenarios about the probes run them, so that the others stay
	// deterministic.
	if !hasTag(sc, "@kubelet-probes") {
		cfg.KubeletProbe.Kinds = nil
	} else {
		// The simulated Picos serve their port 10250 on loopback, the
		// one network an operator would allow here.
		cfg.KubeletProbe.Networks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}
	// Pressure conditions follow their figures heartbeat by heartbeat,
	// as the older scenarios expect, unless a scenario is about the
	// transition period (herd's default is the kubelet's five minutes).
	if !hasTag(sc, "@pressure-hold") {
		cfg.Thresholds.TransitionPeriod = 0
	}
	if hasTag(sc, "@node-runtime-none") {
		// herd runs no pod itself: every node's pods are its agent's.
		cfg.NodeRuntime = app.NodeRuntimeNone
	}
	if w.configure != nil {
		w.configure(&cfg)
	}
	w.cfg = cfg
	return ctx, w.launch(ctx)
}

// launch builds and starts herd from w.cfg on the scenario's data directory
// and clock, and waits for its reconcilers' first pass.
func (w *world) launch(ctx context.Context) error {
	w.app = fx.New(app.Options(w.cfg, append([]fx.Option{
		fx.Decorate(func(clock.WithTicker) clock.WithTicker { return w.clock }),
		fx.Populate(&w.server, &w.log, &w.recs, &w.devices.listener, &w.mock, &w.kubelets, &w.compactor, &w.writer),
		// herd serve --demo's simulated fleet, on the scenario's clock;
		// nothing unless cfg.Demo says how many nodes.
		app.DemoOption(w.cfg),
		// What-ifs through the API, as herd serve wires them.
		app.WhatIfOption(whatif.NewAPIRunner),
	}, w.zoneOptions()...)...))
	if err := w.app.Err(); err != nil {
		w.app = nil
		return fmt.Errorf("build herd: %w", err)
	}
	startCtx, cancel := context.WithTimeout(ctx, startStopTimeout)
	defer cancel()
	if err := w.app.Start(startCtx); err != nil {
		w.app = nil
		return fmt.Errorf("start herd: %w", err)
	}
	w.store = events.SQLiteStore(w.log)
	if w.database != nil && w.store != nil {
		return errors.New("herd was given a PostgreSQL database and opened a SQLite file")
	}
	if len(w.recs.Running()) == 0 {
		w.recs = nil
		return nil
	}
	w.settler = reconcilers.NewSettler(w.recs, w.clock.Now(), w.log.Head)
	w.settler.Timeout = settleTimeout
	return w.settle()
}

// restart stops herd and starts it again on the same log and clock, as an
// operator restarting the process would.
func (w *world) restart(ctx context.Context) error {
	stopCtx, cancel := context.WithTimeout(ctx, startStopTimeout)
	defer cancel()
	if err := w.app.Stop(stopCtx); err != nil {
		return fmt.Errorf("stop herd: %w", err)
	}
	w.app, w.recs, w.kubelets = nil, nil, nil
	return w.launch(ctx)
}

func hasTag(sc *godog.Scenario, tag string) bool {
	for _, t := range sc.Tags {
		if t.Name == tag {
			return true
		}
	}
	return false
}

// stop shuts the scenario's herd down and removes its data directory.
func (w *world) stop(ctx context.Context, _ *godog.Scenario, _ error) (context.Context, error) {
	var errs []error
	w.watching.close()
	w.stall.end() // a stalled write path would hold herd's stop
	errs = append(errs, w.stopAgent())
	if w.app != nil {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startStopTimeout)
		defer cancel()
		if err := w.app.Stop(stopCtx); err != nil {
			errs = append(errs, fmt.Errorf("stop herd: %w", err))
		}
	}
	if w.client != nil {
		w.client.CloseIdleConnections()
	}
	errs = append(errs, w.devices.close())
	for _, s := range w.sims {
		s.server.Close()
	}
	if w.dir != "" {
		if err := os.RemoveAll(w.dir); err != nil {
			errs = append(errs, err)
		}
	}
	if w.db != nil {
		errs = append(errs, w.db.Drop())
	}
	return ctx, errors.Join(errs...)
}

// clockTime matches a time of day such as 09:00:20.
var clockTime = regexp.MustCompile(`^\d{2}:\d{2}:\d{2}$`)

// at reads a time as the specs write it: a time of day on the scenario's
// day ("09:00:20"), or a full RFC 3339 time.
func (w *world) at(s string) (time.Time, error) {
	if clockTime.MatchString(s) {
		tod, err := time.Parse(time.TimeOnly, s)
		if err != nil {
			return time.Time{}, err
		}
		y, m, d := w.epoch.Date()
		return time.Date(y, m, d, tod.Hour(), tod.Minute(), tod.Second(), 0, time.UTC), nil
	}
	return time.Parse(time.RFC3339, s)
}

// show renders a time the way the specs write it.
func (w *world) show(t time.Time) string {
	t = t.UTC()
	if y, m, d := t.Date(); t.Truncate(time.Second).Equal(t) && w.epoch.Year() == y && w.epoch.Month() == m && w.epoch.Day() == d {
		return t.Format(time.TimeOnly)
	}
	return t.Format(time.RFC3339Nano)
}

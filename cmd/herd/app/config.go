package app

import (
	"errors"
	"fmt"
	"net"
	"time"

	"herd/adapters/httpapi"
	"herd/adapters/kubelet"
	"herd/adapters/mockruntime"
	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/projections/watch"
	"herd/reconcilers"
	"herd/reconcilers/health"
	"herd/reconcilers/ipam"
	"herd/reconcilers/kubeletprobe"
	"herd/reconcilers/scheduler"
	"herd/reconcilers/termination"
)

// Config is everything an operator tunes on `herd serve`. Flags and HERD_*
// variables fill it; Validate names the setting that is wrong.
type Config struct {
	// Listen is the address of the HTTP API. The default keeps herd on
	// loopback until an operator decides otherwise.
	Listen string
	// DataDir holds the SQLite database (herd.db and its WAL) when
	// Database is empty.
	DataDir string
	// Database is where the log and its views live: sqlite:///path/herd.db,
	// or a PostgreSQL connection string that any number of herd serve
	// processes share. Empty is herd.db in DataDir.
	Database string
	// ReplicaName names this herd serve among the replicas sharing a
	// PostgreSQL database, in /readyz and the leaders' table; empty is
	// hostname:pid.
	ReplicaName string
	// DatabaseCheckTimeout bounds SQLite's quick_check of an existing
	// database at start (events.Config.CheckTimeout); negative checks the
	// whole file however long it takes. A file found damaged is refused.
	DatabaseCheckTimeout time.Duration
	// ScratchLog says the SQLite log is a scratch copy that nothing needs
	// after a crash (the what-if's): its commits are not synced to disk
	// (events.Config.Scratch). Never set by herd serve.
	ScratchLog bool
	// KubeconfigPath is where serve writes a kubeconfig for this herd at
	// start; "-" writes none. Empty is kubeconfig.yaml in DataDir.
	KubeconfigPath string
	// LogLevel is debug, info, warn or error.
	LogLevel string
	// LogFormat is console (for people) or json (for log shippers).
	LogFormat string
	// Thresholds decide agents' pressure conditions.
	Thresholds domain.Thresholds
	// PollInterval is how often the reconcilers' dispatcher reads the log
	// when no commit was announced. herd's own writes wake it at once, so
	// this only bounds how late it sees a write it was not told of (another
	// process on the same file); an idle herd reads once per interval and
	// writes nothing. Default 1s.
	PollInterval time.Duration
	// Demo, when above zero, runs that many simulated nodes that register
	// and heartbeat through the HTTP API, so a new install has a fleet to
	// look at.
	Demo int
	// Version is herd's build version.
	Version string
	// Profiling serves Go's profiles under /debug/pprof/ on the API
	// listener, to administrators only. Off by default: a CPU profile
	// costs herd CPU while it runs.
	Profiling bool
	// ExpensiveReads is how many reads of history (audit, timelines,
	// explanations, series, lists of the past) run at once; 0 is half the
	// cores, at least two. Node heartbeats keep the rest.
	ExpensiveReads int
	// ReadTimeout bounds each read of history; 0 is 10 s.
	ReadTimeout time.Duration
	// WhatIfTimeout bounds one what-if asked through the API (0: 2 min),
	// WhatIfMaxWindow the window it may ask (0: 24 h).
	WhatIfTimeout, WhatIfMaxWindow time.Duration
	// WriteBehind is how long the oldest write may wait for its commit
	// before herd counts as behind (--write-behind-threshold): /readyz
	// fails and requests other than node heartbeats are refused with 429
	// until it catches up. 0 never counts herd behind.
	WriteBehind time.Duration
	// MaxRequestsInflight and MaxMutatingRequestsInflight bound the
	// reads and the writes other than node heartbeats that run at once
	// (kube-apiserver's flags); 0 is their defaults, 400 and 200, and -1
	// no bound.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
	// MaxHeartbeatsInflight bounds the node heartbeats taken in at once
	// (--max-heartbeats-inflight); one more is refused with 429 and
	// Retry-After and still counts for its node. 0 is 1,000, -1 no bound.
	MaxHeartbeatsInflight int
	// Reconcilers says which reconcilers run and how.
	Reconcilers reconcilers.Config
	// Health holds the node health rules' timings.
	Health health.Config
	// Scheduler tunes the scheduler.
	Scheduler scheduler.Config
	// Security says who may talk to herd: tokens, TLS, the device listener.
	Security SecurityConfig
	// KubeletProbe says which nodes' kubelet endpoints herd probes.
	KubeletProbe kubeletprobe.Config
	// NodeRuntime says what runs herd's pods on nodes without an agent of
	// their own (label herd.dev/runtime=agent): "mock", the in-process
	// mock runtime, or "none", which leaves every node's pods to its
	// agent.
	NodeRuntime string
	// MockRuntime tunes the mock runtime.
	MockRuntime mockruntime.Config
	// Termination holds pod termination's and pod garbage collection's
	// timings.
	Termination termination.Config
	// IPAM says which pools pod addresses come from.
	IPAM ipam.Config
	// Kubelet says which kubelets herd polls, and how.
	Kubelet kubelet.Config
	// Watch tunes watches: the watch cache, the history kept for resuming,
	// bookmarks.
	Watch watch.Config
	// Compaction is the retention policy for plain heartbeats.
	Compaction projections.CompactionConfig
	// LocalNode, when named (--local-node), is this host as a node of the
	// fleet: herd registers it, reports its metrics and runs its pods
	// itself, as an agent would, for a single-host install.
	LocalNode NodeConfig
}

// The values of --node-runtime.
const (
	NodeRuntimeMock = "mock"
	NodeRuntimeNone = "none"
)

// DefaultConfig is what `herd serve` runs with when nothing is set.
func DefaultConfig() Config {
	return Config{
		Listen:               "127.0.0.1:8080",
		DataDir:              "./herd-data",
		LogLevel:             "info",
		LogFormat:            "console",
		Thresholds:           domain.DefaultThresholds,
		PollInterval:         time.Second,
		DatabaseCheckTimeout: events.DefaultCheckTimeout,
		Version:              "dev",
		Reconcilers:          reconcilers.DefaultConfig(),
		Health:               health.DefaultConfig(),
		Scheduler:            scheduler.DefaultConfig(),
		KubeletProbe:         kubeletprobe.DefaultConfig(),
		NodeRuntime:          NodeRuntimeMock,
		Termination:          termination.DefaultConfig(),
		IPAM:                 ipam.DefaultConfig(),
		Kubelet:              kubelet.DefaultConfig(),
		Watch:                watch.DefaultConfig(),
		LocalNode:            DefaultNodeConfig(),
		Compaction:           projections.CompactionConfig{Retention: projections.DefaultHeartbeatRetention},
		Security:             SecurityConfig{MaxWatchesPerUser: httpapi.DefaultMaxWatchesPerUser},
		WriteBehind:          DefaultWriteBehind,
	}
}

// DefaultWriteBehind is --write-behind-threshold's default: a heartbeat
// commits in milliseconds on a herd that keeps up, and a node's grace
// period is 40 s; a write that has waited 5 s says herd is falling
// behind well before any node could be marked for it.
const DefaultWriteBehind = 5 * time.Second

// DatabasePath is the SQLite file: --database's, or herd.db inside
// DataDir. It is empty when the log is in PostgreSQL.
func (c Config) DatabasePath() string {
	d, err := ParseDatabase(c.Database, c.DataDir)
	if err != nil {
		return ""
	}
	return d.Path
}

// Validate reports every wrong setting at once, each by its flag name.
func (c Config) Validate() error {
	var errs []error
	if c.ExpensiveReads < 0 {
		errs = append(errs, fmt.Errorf("--expensive-reads %d is negative", c.ExpensiveReads))
	}
	if c.ReadTimeout < 0 {
		errs = append(errs, fmt.Errorf("--read-timeout %s is negative", c.ReadTimeout))
	}
	if c.WhatIfTimeout < 0 {
		errs = append(errs, fmt.Errorf("--what-if-timeout %s is negative", c.WhatIfTimeout))
	}
	if c.WhatIfMaxWindow < 0 {
		errs = append(errs, fmt.Errorf("--what-if-max-window %s is negative", c.WhatIfMaxWindow))
	}
	if c.WriteBehind < 0 {
		errs = append(errs, fmt.Errorf("--write-behind-threshold %s is negative", c.WriteBehind))
	}
	if c.MaxRequestsInflight < -1 {
		errs = append(errs, fmt.Errorf("--max-requests-inflight %d: want a count, or -1 for no bound", c.MaxRequestsInflight))
	}
	if c.MaxMutatingRequestsInflight < -1 {
		errs = append(errs, fmt.Errorf("--max-mutating-requests-inflight %d: want a count, or -1 for no bound", c.MaxMutatingRequestsInflight))
	}
	if c.MaxHeartbeatsInflight < -1 {
		errs = append(errs, fmt.Errorf("--max-heartbeats-inflight %d: want a count, or -1 for no bound", c.MaxHeartbeatsInflight))
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		errs = append(errs, fmt.Errorf("--listen %q: want host:port: %w", c.Listen, err))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir must not be empty"))
	}
	if _, err := ParseDatabase(c.Database, c.DataDir); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, validateLogging(c.LogLevel, c.LogFormat)...)
	t := c.Thresholds
	for _, p := range []struct {
		flag string
		v    int64
	}{{"--memory-pressure-percent", t.MemoryPercent}, {"--disk-pressure-percent", t.DiskPercent}, {"--pid-pressure-percent", t.PIDPercent},
		{"--cpu-pressure-percent", t.CPUPercent}} {
		if p.v <= 0 || p.v > 100 {
			errs = append(errs, fmt.Errorf("%s %d: want 1 to 100", p.flag, p.v))
		}
	}
	if t.LoadPerCPU <= 0 {
		errs = append(errs, fmt.Errorf("--high-load-per-cpu %g: want a positive number", t.LoadPerCPU))
	}
	if t.TransitionPeriod < 0 {
		errs = append(errs, fmt.Errorf("--pressure-transition-period %s: want 0 or more", t.TransitionPeriod))
	}
	if c.PollInterval <= 0 {
		errs = append(errs, fmt.Errorf("--poll-interval %s: want a positive duration", c.PollInterval))
	}
	if c.Demo < 0 {
		errs = append(errs, fmt.Errorf("--demo %d: want 0 or more", c.Demo))
	}
	if err := c.Reconcilers.Validate(ServeReconcilers); err != nil {
		errs = append(errs, err)
	}
	if err := c.Compaction.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Health.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Scheduler.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Security.validate(c.Listen, c.Demo); err != nil {
		errs = append(errs, err)
	}
	if err := c.KubeletProbe.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.NodeRuntime != NodeRuntimeMock && c.NodeRuntime != NodeRuntimeNone {
		errs = append(errs, fmt.Errorf("--node-runtime %q: want %s or %s", c.NodeRuntime, NodeRuntimeMock, NodeRuntimeNone))
	}
	if err := c.MockRuntime.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Termination.Validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.IPAM.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Kubelet.Validate(); err != nil {
		errs = append(errs, err)
	}
	w := c.Watch
	if w.CacheSize <= 0 {
		errs = append(errs, fmt.Errorf("--watch-cache-size %d: want a positive number of events", w.CacheSize))
	}
	if w.CacheBytes <= 0 {
		errs = append(errs, fmt.Errorf("--watch-cache-bytes %d: want a positive number of bytes", w.CacheBytes))
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--watch-history", w.History}, {"--watch-bookmark-interval", w.BookmarkInterval}, {"--watch-poll-interval", w.PollInterval}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: want a positive duration", d.flag, d.v))
		}
	}
	if c.LocalNode.Name != "" {
		if err := c.LocalNode.Validate("--local-node"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

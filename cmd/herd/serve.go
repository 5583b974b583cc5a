package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"herd/cmd/herd/app"
	"herd/cmd/herd/whatif"
)

func newServeCmd() *cobra.Command {
	cfg := app.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the control plane: the event log, its views and the API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Version = version
			if err := cfg.Validate(); err != nil {
				return reportErr(cmd, configError{err})
			}
			return reportErr(cmd, serve(cfg))
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Listen, "listen", cfg.Listen, "address of the HTTP API (host:port)")
	f.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "directory of the SQLite event log")
	f.StringVar(&cfg.KubeconfigPath, "write-kubeconfig", cfg.KubeconfigPath,
		`write a kubeconfig for this herd here at start, mode 0600 (default kubeconfig.yaml in --data-dir; "-" writes none): KUBECONFIG=that kubectl get nodes`)
	f.StringVar(&cfg.Database, "database", cfg.Database, "where the event log and its views live: sqlite:///path/to/herd.db (default: herd.db in --data-dir) or a PostgreSQL URL (postgres://user@host1,host2/herd?target_session_attrs=read-write; the password from PGPASSWORD or ~/.pgpass), shared by every herd serve replica")
	f.DurationVar(&cfg.DatabaseCheckTimeout, "database-check-timeout", cfg.DatabaseCheckTimeout,
		"how long SQLite's integrity check (PRAGMA quick_check) of an existing database may delay start-up; past it the rest of the file is trusted unread, with a warning (-1 checks it whole). A file found damaged, empty or not herd's is refused")
	f.StringVar(&cfg.ReplicaName, "replica-name", cfg.ReplicaName, "this replica's name among those sharing a PostgreSQL --database, as /readyz?verbose and the leaders table show it (default hostname:pid)")
	f.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error")
	f.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "console or json")
	f.Int64Var(&cfg.Thresholds.MemoryPercent, "memory-pressure-percent", cfg.Thresholds.MemoryPercent, "MemoryPressure when an agent's memory use is above this percent")
	f.Int64Var(&cfg.Thresholds.DiskPercent, "disk-pressure-percent", cfg.Thresholds.DiskPercent, "DiskPressure when an agent's disk use is above this percent")
	f.Int64Var(&cfg.Thresholds.PIDPercent, "pid-pressure-percent", cfg.Thresholds.PIDPercent, "PIDPressure when an agent's PIDs in use are above this percent of the maximum")
	f.Float64Var(&cfg.Thresholds.LoadPerCPU, "high-load-per-cpu", cfg.Thresholds.LoadPerCPU, "HighLoad when load1 is above this many times the CPU count")
	f.Int64Var(&cfg.Thresholds.CPUPercent, "cpu-pressure-percent", cfg.Thresholds.CPUPercent, "CPUPressure when an agent's CPU use since its previous heartbeat is above this percent; the default is herd's own (Kubernetes has no CPU condition): headroom for a burst, yet a node that stays busy is flagged")
	f.DurationVar(&cfg.Thresholds.TransitionPeriod, "pressure-transition-period", cfg.Thresholds.TransitionPeriod, "how long a pressure condition stays True once its signal is back under the threshold (the kubelet's --eviction-pressure-transition-period and default); 0 clears it at once")
	f.DurationVar(&cfg.PollInterval, "poll-interval", cfg.PollInterval, "how often the reconcilers look for writes herd was not told of (another process's); herd's own are seen at once")
	f.BoolVar(&cfg.Profiling, "profiling", cfg.Profiling, "serve Go's profiles under /debug/pprof/ to administrators (kube-apiserver's flag)")
	f.IntVar(&cfg.ExpensiveReads, "expensive-reads", cfg.ExpensiveReads, "reads of history (audit, timelines, explanations, series, lists of the past) run at once; more wait a second, then get 429 with Retry-After, so that node heartbeats keep their share of the database (default half the cores, at least two)")
	f.DurationVar(&cfg.WriteBehind, "write-behind-threshold", cfg.WriteBehind, "how long the oldest write may wait for its commit before herd counts as behind: then /readyz fails, the health rules allow for the delay before marking a node, and requests other than node heartbeats get 429 with Retry-After until herd catches up (0: never)")
	f.IntVar(&cfg.MaxRequestsInflight, "max-requests-inflight", cfg.MaxRequestsInflight, "reads (gets and lists) that run at once; one more gets 429 with Retry-After (kube-apiserver's flag; default 400, -1 for no bound)")
	f.IntVar(&cfg.MaxMutatingRequestsInflight, "max-mutating-requests-inflight", cfg.MaxMutatingRequestsInflight, "writes other than node heartbeats that run at once; one more gets 429 with Retry-After (kube-apiserver's flag; default 200, -1 for no bound); node heartbeats have their own share")
	f.IntVar(&cfg.MaxHeartbeatsInflight, "max-heartbeats-inflight", cfg.MaxHeartbeatsInflight, "node heartbeats (Lease renewals, status reports) taken in at once; one more gets 429 with Retry-After and still counts for its node (default 1000, -1 for no bound)")
	f.DurationVar(&cfg.ReadTimeout, "read-timeout", cfg.ReadTimeout, "how long one read of history may take before it is cancelled in the database and answered 504 (default 10s)")
	f.DurationVar(&cfg.WhatIfTimeout, "what-if-timeout", cfg.WhatIfTimeout, "how long one what-if asked through the API (POST /apis/herd.dev/v1/whatifs, the web view's What if page) may run before it is stopped and answered 504 (default 2m); one runs at a time")
	f.DurationVar(&cfg.WhatIfMaxWindow, "what-if-max-window", cfg.WhatIfMaxWindow, "the longest window a what-if asked through the API may replay; a longer one is refused with 400 (default 24h)")
	f.IntVar(&cfg.Demo, "demo", cfg.Demo, "run this many simulated nodes against the API (for a first look)")
	f.StringSliceVar(&cfg.Reconcilers.Enabled, "reconcilers", cfg.Reconcilers.Enabled, `reconcilers to run: "*" for all, "-name" to switch one off (e.g. "*,-health")`)
	f.IntVar(&cfg.Reconcilers.Workers, "reconciler-workers", cfg.Reconcilers.Workers, "keys each reconciler works on at once")
	f.IntVar(&cfg.Reconcilers.MaxRetries, "reconciler-max-retries", cfg.Reconcilers.MaxRetries, "retries with backoff before a failing key waits for the next resync")
	f.DurationVar(&cfg.Health.MonitorPeriod, "node-monitor-period", cfg.Health.MonitorPeriod, "how often every node's heartbeat deadline is checked (Kubernetes' flag and default)")
	f.DurationVar(&cfg.Health.GracePeriod, "node-monitor-grace-period", cfg.Health.GracePeriod, "silence after which a node's conditions go Unknown (Kubernetes' flag and default)")
	f.Float64Var(&cfg.Health.EvictionRate, "node-eviction-rate", cfg.Health.EvictionRate, "nodes a second that get the NoExecute taint their Ready condition calls for, first come first served, as Kubernetes' flag of that name does (its default is 0.1); 0, herd's default, taints every node at once")
	f.Float64Var(&cfg.Health.SecondaryEvictionRate, "secondary-node-eviction-rate", cfg.Health.SecondaryEvictionRate, "nodes a second that get the NoExecute taint while the fleet is disrupted but partly reachable, in a fleet larger than --large-fleet-size-threshold (Kubernetes' flag and default); 0 withholds them")
	f.IntVar(&cfg.Health.LargeFleetThreshold, "large-fleet-size-threshold", cfg.Health.LargeFleetThreshold, "fleet size above which a disruption slows NoExecute taints to --secondary-node-eviction-rate rather than withholding them (Kubernetes' --large-cluster-size-threshold and default)")
	f.Float64Var(&cfg.Health.UnhealthyThreshold, "unhealthy-fleet-threshold", cfg.Health.UnhealthyThreshold, "share of the fleet unreachable at once (three nodes or more) at which herd suspects it is cut off itself and withholds or slows NoExecute taints (Kubernetes' --unhealthy-zone-threshold and default, with the fleet as the zone)")
	f.IntVar(&cfg.Watch.CacheSize, "watch-cache-size", cfg.Watch.CacheSize, "recent events kept in memory for watches; a watcher further behind is cut off with 410 Expired")
	f.Int64Var(&cfg.Watch.CacheBytes, "watch-cache-bytes", cfg.Watch.CacheBytes, "memory the recent events kept for watches may hold (their objects, as measured from them, and their encoded forms); past it the oldest are dropped, as if --watch-cache-size were smaller (default 64 MiB: a bound on clients that write large objects, far above what 8,192 heartbeats hold)")
	f.DurationVar(&cfg.Watch.History, "watch-history", cfg.Watch.History, "how long a resourceVersion stays usable for resuming a watch or continuing a list (then 410 Expired)")
	f.DurationVar(&cfg.Watch.BookmarkInterval, "watch-bookmark-interval", cfg.Watch.BookmarkInterval, "how often watches that allow bookmarks get one")
	f.IntVar(&cfg.Watch.SnapshotEvery, "snapshot-every", cfg.Watch.SnapshotEvery,
		"snapshot an object into the database after this many of its events, so that its state at any moment folds from at most that many (lists of the past, watches resumed after a restart); -1 takes none (default 100)")
	f.DurationVar(&cfg.Watch.SnapshotInterval, "snapshot-interval", cfg.Watch.SnapshotInterval,
		"also snapshot, this often, every object that changed since its last snapshot (default 1h)")
	f.DurationVar(&cfg.Watch.PollInterval, "watch-poll-interval", cfg.Watch.PollInterval, "how often the watch hub looks for writes herd was not told of (another process's); herd's own are seen at once")
	f.DurationVar(&cfg.Compaction.Retention, "heartbeat-retention", cfg.Compaction.Retention,
		"keep every heartbeat this long; older ones a later heartbeat of the same node supersedes are deleted (each node's newest and every other event are kept for ever; 0 keeps every heartbeat)")
	f.DurationVar(&cfg.Compaction.KeepEvery, "heartbeat-keep-every", cfg.Compaction.KeepEvery,
		"beyond --heartbeat-retention, still keep one heartbeat per node per this much time, for charts and time travel (0 keeps none)")
	f.DurationVar(&cfg.Compaction.Interval, "heartbeat-compaction-interval", cfg.Compaction.Interval,
		"how often herd looks for heartbeats to delete under --heartbeat-retention (default 10s)")
	k := &cfg.Kubelet
	f.StringSliceVar(&k.Flags, "kubelet", k.Flags, "a kubelet to poll, as NODE=URL (https://host:10250, or http://host:10255 for the read-only port); repeatable")
	f.StringVar(&k.File, "kubelet-config", k.File, "a YAML file of kubelets to poll, with their TLS settings and credentials")
	f.StringVar(&k.Defaults.CAFile, "kubelet-certificate-authority", k.Defaults.CAFile, "CA bundle that signs the serving certificates of the --kubelet kubelets")
	f.StringVar(&k.Defaults.ClientCertFile, "kubelet-client-certificate", k.Defaults.ClientCertFile, "client certificate herd presents to the --kubelet kubelets")
	f.StringVar(&k.Defaults.ClientKeyFile, "kubelet-client-key", k.Defaults.ClientKeyFile, "key of --kubelet-client-certificate")
	f.StringVar(&k.Defaults.BearerTokenFile, "kubelet-token-file", k.Defaults.BearerTokenFile, "file holding the bearer token herd presents to the --kubelet kubelets (read before every poll)")
	f.BoolVar(&k.Defaults.InsecureSkipVerify, "kubelet-insecure-skip-tls-verify", k.Defaults.InsecureSkipVerify, "accept any serving certificate from the --kubelet kubelets (labs only)")
	f.DurationVar(&k.StatsInterval, "kubelet-stats-interval", k.StatsInterval, "how often each kubelet's /healthz and /stats/summary are polled, each poll a heartbeat")
	f.DurationVar(&k.Interval, "kubelet-poll-interval", k.Interval, "how often each kubelet's pods, settings, machine, and probe, resource, cAdvisor and own metrics are polled")
	f.DurationVar(&k.Timeout, "kubelet-timeout", k.Timeout, "how long one request to a kubelet may take")
	f.Float64Var(&k.Signals.ThrottledPercent, "kubelet-cpu-throttled-percent", k.Signals.ThrottledPercent,
		"share of its CPU periods a container may be throttled in before it counts as throttled (CPUThrottling, from /metrics/cadvisor; the default is the share at which kubernetes-mixin's CPUThrottlingHigh alert fires)")
	f.DurationVar(&k.Signals.ThrottledFor, "kubelet-cpu-throttled-for", k.Signals.ThrottledFor,
		"how long a container must stay throttled before CPUThrottling is raised (the default is two polls at the default --kubelet-poll-interval)")
	f.Float64Var(&k.Signals.NetworkErrorsPerSecond, "kubelet-network-errors-per-second", k.Signals.NetworkErrorsPerSecond,
		"receive and transmit errors per second on a kubelet node's interfaces above which it is NetworkUnavailable (from /metrics/cadvisor; a healthy link counts none, and the default lets a few stray errors pass)")
	f.DurationVar(&k.Signals.RelistSlow, "kubelet-pleg-relist-slow", k.Signals.RelistSlow,
		"mean pod lifecycle relist time above which a kubelet's container runtime is ContainerRuntimeUnhealthy (from /metrics' kubelet_pleg_relist_duration_seconds; the default is the kubelet's relist period, beyond which relists fall behind)")
	f.DurationVar(&k.MaxBackoff, "kubelet-max-backoff", k.MaxBackoff, "longest wait between polls of a kubelet that keeps failing")
	f.DurationVar(&cfg.Health.StartupGracePeriod, "node-startup-grace-period", cfg.Health.StartupGracePeriod, "time a new node has to send its first heartbeat (Kubernetes' flag and default)")
	f.DurationVar(&cfg.Scheduler.ResyncPeriod, "scheduler-resync-period", cfg.Scheduler.ResyncPeriod, "how often pending pods are tried again without an event")
	f.StringVar(&cfg.Scheduler.ScoringStrategy, "scheduler-scoring-strategy", cfg.Scheduler.ScoringStrategy, "how the scheduler ranks the nodes a pod fits on: LeastAllocated spreads pods to the emptiest (the Kubernetes scheduler's default), MostAllocated packs them onto the fullest, leaving whole nodes free, RequestedToCapacityRatio scores by --scheduler-scoring-shape")
	f.Var(&cfg.Scheduler.Shape, "scheduler-scoring-shape", "RequestedToCapacityRatio's scoring function: UTILIZATION=SCORE points, the score (0 to 10) a node gets at each percentage of its CPU and memory requested, straight lines between them (0=0,100=10 packs pods onto the fullest node; 0=0,50=10,100=0 fills nodes to half)")
	f.IntVar(&cfg.Scheduler.BindBatchSize, "scheduler-bind-batch-size", cfg.Scheduler.BindBatchSize, "pod bindings per transaction")
	addSecurityFlags(f, &cfg)
	f.StringVar(&cfg.NodeRuntime, "node-runtime", cfg.NodeRuntime, `what runs herd's pods on nodes without their own agent (label herd.dev/runtime=agent): "mock" (in-process, runs nothing real) or "none"`)
	f.DurationVar(&cfg.MockRuntime.ShutdownDelay, "mock-shutdown-delay", cfg.MockRuntime.ShutdownDelay, "how long a pod on the mock runtime takes to stop once asked (per pod: annotation mock.herd.dev/shutdown-seconds)")
	f.DurationVar(&cfg.Termination.PodGCTimeout, "pod-gc-timeout", cfg.Termination.PodGCTimeout, "how long past its deletion deadline a pod on an unreachable node waits before it is removed anyway")
	f.StringSliceVar(&cfg.IPAM.Pools, "pod-cidr", cfg.IPAM.Pools, "IPv4 pools pod addresses come from, tried in order (repeatable); the gateway is each pool's network address plus one")
	f.DurationVar(&cfg.IPAM.ResyncPeriod, "ipam-resync-period", cfg.IPAM.ResyncPeriod, "how often waiting pods and stray addresses are checked without an event")
	f.StringVar(&cfg.LocalNode.Name, "local-node", cfg.LocalNode.Name, "run this host as a node of that name too, as herd agent would: herd registers it, reports its metrics and runs its pods (single-host installs)")
	addNodeFlags(f, &cfg.LocalNode)
	return cmd
}

// serve runs herd until SIGINT or SIGTERM, then stops cleanly: the API
// drains, the log closes.
func serve(cfg app.Config) error {
	return runUntilSignalled(app.Options(cfg, app.DemoOption(cfg), app.KubeconfigOption(cfg), app.WhatIfOption(whatif.NewAPIRunner)), time.Minute)
}

// runUntilSignalled builds the app from opts, starts it within
// startTimeout and runs it until SIGINT or SIGTERM. Signals are listened
// for before anything starts, so that one during start-up (migrations can
// take a while) still stops it cleanly.
func runUntilSignalled(opts fx.Option, startTimeout time.Duration) error {
	sigCtx, stopSignals := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stopSignals()
	a := fx.New(opts)
	if err := a.Err(); err != nil {
		return rootCause(err)
	}
	startCtx, cancel := context.WithTimeout(sigCtx, startTimeout)
	defer cancel()
	if err := a.Start(startCtx); err != nil {
		if sigCtx.Err() != nil {
			return stop(a)
		}
		return rootCause(err)
	}
	<-sigCtx.Done()
	return stop(a)
}

func stop(a *fx.App) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return a.Stop(ctx)
}

// errReported marks an error a command has already printed, so that main
// does not print it twice.
var errReported = errors.New("reported")

func reportErr(cmd *cobra.Command, err error) error {
	if err != nil {
		printErr(cmd.ErrOrStderr(), err)
		return fmt.Errorf("%w: %w", errReported, err)
	}
	return nil
}

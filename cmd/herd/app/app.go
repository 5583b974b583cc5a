package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/conversions"
	"herd/adapters/httpapi"
	"herd/adapters/kubelet"
	"herd/adapters/webui"
	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/projections/watch"
	"herd/reconcilers"
	"herd/reconcilers/cronjob"
	"herd/reconcilers/daemonset"
	"herd/reconcilers/deployment"
	"herd/reconcilers/disruption"
	"herd/reconcilers/drain"
	"herd/reconcilers/garbagecollector"
	"herd/reconcilers/health"
	"herd/reconcilers/ipam"
	"herd/reconcilers/job"
	"herd/reconcilers/kubeletprobe"
	"herd/reconcilers/noexecute"
	"herd/reconcilers/podready"
	"herd/reconcilers/replicaset"
	"herd/reconcilers/scheduler"
	"herd/reconcilers/statefulset"
	"herd/reconcilers/termination"
	"herd/reconcilers/zones"
)

// Options is the whole of `herd serve` as fx options. Tests append options
// of their own, for instance fx.Decorate to swap the clock.
func Options(cfg Config, extra ...fx.Option) fx.Option {
	return fx.Options(
		engine(cfg, kubelet.Module, fx.Options(localNodeOption(cfg), fx.Invoke(raiseFileLimit))),
		fx.Invoke(func(*HTTPServer, *DeviceServer, *projections.Compactor) {}),
		fx.Options(extra...),
		markStarted(),
	)
}

// SimulationOptions is herd's engine without what reaches outside it: the
// log, the views, the unit of work and every reconciler, wired as `herd
// serve` wires them, but no API listener, no device listener, no kubelet
// pollers, no local node and no heartbeat retention. The what-if runs it
// on a log of its own and a fake clock; what the outside sent is fed in
// through the Writer.
func SimulationOptions(cfg Config, extra ...fx.Option) fx.Option {
	return fx.Options(engine(cfg, fx.Options(), fx.Options()), fx.Options(extra...))
}

// engine is what Options and SimulationOptions share; pollers and local
// go in the places `herd serve` has always started them, before the
// reconcilers and before herd's first writes.
func engine(cfg Config, pollers, local fx.Option) fx.Option {
	return fx.Options(
		fx.Supply(cfg),
		fx.WithLogger(newFxLogger),
		fx.Provide(
			NewLogger,
			// One clock for everything; tests swap it for a fake one with
			// fx.Decorate on clock.WithTicker.
			func() clock.WithTicker { return clock.RealClock{} },
			func(c clock.WithTicker) clock.Clock { return c },
			newRegistry,
			openLog,
			// The SQLite store behind the log, nil on PostgreSQL: the
			// reconcilers' dispatcher follows it.
			events.SQLiteStore,
			// Who runs the reconcilers: on SQLite this herd, at once; on
			// PostgreSQL the replica that holds their advisory lock.
			func(l events.Log, cfg Config) events.Leadership {
				return events.LeadershipOf(l, events.LeadershipConfig{Replica: cfg.ReplicaName})
			},
			func(l events.Log, clk clock.Clock, m *projections.Metrics) *projections.Writer {
				return projections.NewWriter(l, clk, m)
			},
			// Node and lease reads from the command layer's memory where
			// it holds them as last committed (SQLite).
			func(l events.Log, w *projections.Writer) *projections.NodeView {
				return projections.NewNodeView(l).Remembering(w)
			},
			projections.NewTimelineView,
			projections.NewPodView,
			projections.NewConfigMapView,
			projections.NewNamespaceView,
			func(l events.Log, w *projections.Writer) *projections.LeaseView {
				return projections.NewLeaseView(l).Remembering(w)
			},
			projections.NewReplicaSetView,
			projections.NewDeploymentView,
			projections.NewPodDisruptionBudgetView,
			projections.NewJobView,
			projections.NewCronJobView,
			projections.NewStatefulSetView,
			projections.NewControllerRevisionView,
			projections.NewDaemonSetView,
			projections.NewDeviceBindingView,
			newAuthenticator,
			newStarted,
			newCompactor,
			newWatchHub,
			newAPI,
			newHTTPServer,
			newDeviceServer,
			func(cfg Config) reconcilers.Config { return cfg.Reconcilers },
			reconcilers.NewMetrics,
			func(w *projections.Writer) health.Repository { return w },
			func(cfg Config) health.Config { return cfg.Health },
			func(w *projections.Writer) scheduler.Repository { return w },
			func(cfg Config) scheduler.Config { return cfg.Scheduler },
			newMockRuntime,
			newRunner,
			newLocalRuntime,
			newNodeRuntimes,
			terminationRuntimes,
			zonesRuntimes,
			projections.NewIPAMView,
			kubeletConfig,
		),
		commands,
		namespaceGate,
		// Heartbeats as they reach the API, before their writes land: the
		// API notes them, the health rules read them.
		fx.Provide(health.NewHeard),
		reconcilers.Provide(func(cfg health.Config, repo health.Repository, view *projections.NodeView, clk clock.Clock, log *zap.Logger,
			heard *health.Heard, w *projections.Writer) (*health.Reconciler, error) {
			return health.New(cfg, repo, view, clk, log, health.WithArrivals(heard), health.WithBacklog(w.WriteQueue()))
		}),
		reconcilers.Provide(func(cfg scheduler.Config, w *projections.Writer, repo scheduler.Repository, nodes *projections.NodeView, pods *projections.PodView, clk clock.Clock, log *zap.Logger) (*scheduler.Reconciler, error) {
			return scheduler.New(cfg, repo, nodes, pods.Remembering(w), clk, log)
		}),
		reconcilers.Provide(func(cfg Config, nodes domain.Executor[domain.Node, domain.NodeCommand], view *projections.NodeView, clk clock.Clock, log *zap.Logger) (*kubeletprobe.Reconciler, error) {
			return kubeletprobe.New(cfg.KubeletProbe, nodes, view, clk, log)
		}),
		reconcilers.Provide(func(cfg Config, w *projections.Writer, cmds domain.Executor[domain.Pod, domain.PodCommand], pods *projections.PodView, nodes *projections.NodeView,
			rts termination.Runtimes, clk clock.Clock, log *zap.Logger) (*termination.Reconciler, error) {
			return termination.New(cfg.Termination, cmds, pods.Remembering(w), nodes, rts, clk, log)
		}),
		reconcilers.Provide(func(w *projections.Writer, cmds domain.Executor[domain.Pod, domain.PodCommand], pods *projections.PodView, nodes *projections.NodeView,
			rts zones.Runtimes, clk clock.Clock, log *zap.Logger) (*zones.Reconciler, error) {
			return zones.New(zones.Config{ResyncPeriod: zones.DefaultResyncPeriod},
				zones.Local{Commands: cmds, Pods: pods.Remembering(w), Nodes: nodes}, rts, clk, log)
		}),
		reconcilers.Provide(func(cmds domain.Executor[domain.Pod, domain.PodCommand], pods *projections.PodView, nodes *projections.NodeView,
			clk clock.Clock, log *zap.Logger) *noexecute.Reconciler {
			return noexecute.New(noexecute.DefaultResyncPeriod, cmds, pods, nodes, clk, log)
		}),
		podready.Module,
		reconcilers.Provide(func(w *projections.Writer, pods *projections.PodView, nodes *projections.NodeView,
			clk clock.Clock, log *zap.Logger) *drain.Reconciler {
			return drain.New(drain.DefaultResyncPeriod, w, pods, nodes, clk, log)
		}),
		reconcilers.Provide(namespaceReconciler),
		reconcilers.Provide(func(cfg Config, w *projections.Writer, pods *projections.PodView, view *projections.IPAMView, clk clock.Clock, log *zap.Logger) (*ipam.Reconciler, error) {
			return ipam.New(cfg.IPAM, w, pods, view, clk, log)
		}),
		// The ReplicaSet reconciler reads through its own small
		// interfaces, which the views satisfy.
		fx.Provide(func(v *projections.ReplicaSetView) replicaset.Reader { return v }),
		fx.Provide(func(v *projections.PodView) replicaset.PodLister { return v }),
		replicaset.Module,
		fx.Provide(func(v *projections.DeploymentView) deployment.Reader { return v }),
		fx.Provide(func(v *projections.ReplicaSetView) deployment.ReplicaSetLister { return v }),
		deployment.Module,
		// The disruption reconciler likewise reads budgets, pods and
		// ReplicaSets through its own interfaces.
		fx.Provide(func(v *projections.PodDisruptionBudgetView) disruption.Reader { return v }),
		fx.Provide(func(v *projections.PodView) disruption.PodLister { return v }),
		fx.Provide(func(v *projections.ReplicaSetView) disruption.ReplicaSetReader { return v }),
		fx.Provide(func(v *projections.DeploymentView) disruption.DeploymentReader { return v }),
		disruption.Module,
		// The Job reconciler likewise.
		fx.Provide(func(v *projections.JobView) job.Reader { return v }),
		fx.Provide(func(v *projections.PodView) job.PodLister { return v }),
		job.Module,
		// The CronJob reconciler likewise.
		fx.Provide(func(v *projections.CronJobView) cronjob.Reader { return v }),
		fx.Provide(func(v *projections.JobView) cronjob.JobLister { return v }),
		cronjob.Module,
		// The StatefulSet reconciler likewise.
		fx.Provide(func(v *projections.StatefulSetView) statefulset.Reader { return v }),
		fx.Provide(func(v *projections.PodView) statefulset.PodLister { return v }),
		// Its revisions' data is the API's (conversions): kubectl rollout
		// undo sends it back as it is.
		fx.Provide(func(v *projections.ControllerRevisionView) statefulset.RevisionReader { return v }),
		fx.Provide(func() statefulset.RevisionCodec {
			return statefulset.RevisionFuncs{DataOf: conversions.StatefulSetRevisionData, TemplateOf: conversions.StatefulSetRevisionTemplate}
		}),
		statefulset.Module,
		// The DaemonSet reconciler likewise.
		fx.Provide(func(v *projections.DaemonSetView) daemonset.Reader { return v }),
		fx.Provide(func(v *projections.NodeView) daemonset.NodeLister { return v }),
		fx.Provide(func(v *projections.PodView) daemonset.PodLister { return v }),
		fx.Provide(func() daemonset.RevisionData { return conversions.DaemonSetRevisionData }),
		daemonset.Module,
		garbagecollector.Module,
		pollers,
		reconcilers.Module,
		local,
		fx.Invoke(ensureNamespaces),
		fx.Invoke(registerNodeSeries),
		fx.Invoke(shareStatesWithHub),
		fx.Invoke(watchWriteQueue),
		fx.Invoke(reportMemoryLimit),
	)
}

func newRegistry() (*prometheus.Registry, prometheus.Registerer, prometheus.Gatherer, *projections.Metrics) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg, reg, reg, projections.NewMetrics(reg)
}

// registerNodeSeries puts the per-node series on /metrics: fed by the
// unit of work from the moment it exists, and filled with the nodes of
// the view as herd starts, before the API listens.
func registerNodeSeries(lc fx.Lifecycle, reg prometheus.Registerer, w *projections.Writer, view *projections.NodeView, clk clock.Clock) error {
	series := projections.NewNodeSeries(w, clk)
	if err := reg.Register(series); err != nil {
		return fmt.Errorf("per-node metrics: %w", err)
	}
	lc.Append(fx.StartHook(func(ctx context.Context) error { return series.Load(ctx, view) }))
	return nil
}

// shareStatesWithHub lets the watch hub take the node and Lease states
// this herd commits instead of folding their events again.
func shareStatesWithHub(w *projections.Writer, hub *watch.Hub) { w.ShareStatesWith(hub) }

// openLog opens the event log where --database says, brings its views'
// tables up to date, and closes it last of all when herd stops: what herd
// acknowledged is in it. A SQLite file is herd's alone (its directory is
// locked); a PostgreSQL database is shared by every replica.
func openLog(lc fx.Lifecycle, cfg Config, log *zap.Logger, m *projections.Metrics, reg prometheus.Registerer) (events.Log, error) {
	db, err := ParseDatabase(cfg.Database, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	// A minute to open, migrate and read the head, besides the check of
	// an existing file, which has its own bound.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+max(cfg.DatabaseCheckTimeout, 0))
	if cfg.DatabaseCheckTimeout < 0 {
		ctx, cancel = context.WithCancel(context.Background())
	}
	defer cancel()
	var l events.Log
	switch db.Engine {
	case events.EnginePostgres:
		pg, err := events.OpenPostgres(ctx, db.URL)
		if err != nil {
			return nil, fmt.Errorf("--database %s: %w", db, err)
		}
		l = pg
	default:
		dir := db.dir()
		if cfg.Database == "" {
			dir = cfg.DataDir
		}
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("--data-dir %s: %w", dir, err)
		}
		if err := lockDataDir(lc, dir, log); err != nil {
			return nil, err
		}
		store, err := events.Open(ctx, events.Config{Path: db.Path, FollowInterval: cfg.PollInterval, CheckTimeout: cfg.DatabaseCheckTimeout, Scratch: cfg.ScratchLog}, NewWatermillLogger(log))
		if err != nil {
			return nil, ExplainDamage(err)
		}
		logCheck(log, db, store.Check(), cfg.DatabaseCheckTimeout)
		l = store.Log()
	}
	if err := projections.Migrate(ctx, l); err != nil {
		_ = l.Close()
		return nil, err
	}
	// The dispatcher and the watch hub follow the log's head side by
	// side: each stretch is read and decoded once, for both.
	events.ShareReads(l)
	head, err := l.Head(ctx)
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	m.SetHead(head)
	projections.RegisterLogMetrics(reg, l)
	log.Info("event log open", zap.Stringer("database", db), zap.Int64("position", head))
	lc.Append(fx.StopHook(func() error {
		err := l.Close()
		if err != nil {
			log.Error("the event log did not close cleanly", zap.Error(err))
			return err
		}
		log.Info("herd stopped: the event log is closed", zap.Stringer("database", db))
		return nil
	}))
	return l, nil
}

// workloadViews are the views of the workload kinds the API serves.
type workloadViews struct {
	fx.In

	ReplicaSets *projections.ReplicaSetView
	Deployments *projections.DeploymentView
	DaemonSets  *projections.DaemonSetView
	Jobs        *projections.JobView
	CronJobs    *projections.CronJobView
	Budgets     *projections.PodDisruptionBudgetView
	// StatefulSets is the StatefulSets' view (apps/v1).
	StatefulSets *projections.StatefulSetView
	// Revisions is the ControllerRevisions' view (apps/v1).
	Revisions *projections.ControllerRevisionView
}

// whatIfRunner is the what-if engine, when the binary provides one: it
// lives outside this package (it runs this package's engine itself), so
// the binary wires it in (WhatIfOption).
type whatIfRunner struct {
	fx.In

	Runner httpapi.WhatIfRunner `optional:"true"`
}

// WhatIfOption serves what-ifs through the API with the runner newRunner
// makes from herd serve's log and settings.
func WhatIfOption[R httpapi.WhatIfRunner](newRunner func(events.Log, Config) R) fx.Option {
	return fx.Provide(fx.Annotate(newRunner, fx.As(new(httpapi.WhatIfRunner))))
}

func newAPI(cfg Config, w *projections.Writer, nodes *projections.NodeView, pods *projections.PodView, tl *projections.TimelineView,
	kubeletTargets *projections.KubeletTargetView, elog events.Log, hub *watch.Hub, clk clock.Clock, log *zap.Logger, g prometheus.Gatherer,
	cms *projections.ConfigMapView, devices *projections.DeviceBindingView, nss *projections.NamespaceView, leases *projections.LeaseView,
	wv workloadViews, auth httpapi.Authenticator, recs *reconcilers.Manager, leadership events.Leadership, compactor *projections.Compactor,
	heard *health.Heard, reg prometheus.Registerer, wi whatIfRunner, st *started) (*httpapi.Server, error) {
	var retention httpapi.LeaderSource
	if compactor.Enabled() {
		retention = jobLeader{leadership, projections.RetentionJob}
	}
	return httpapi.NewServer(httpapi.Deps{
		Nodes: w.NodeCommands(), NodeView: nodes, Pods: w.PodCommands(), PodView: pods, KubeletTargets: w.KubeletTargetsCommands(), Timeline: tl, KubeletTargetView: kubeletTargets, Log: elog, Watch: hub, Clock: clk, Logger: log.Named("http"), Gatherer: g,
		ConfigMaps: w.ConfigMapCommands(), ConfigMapView: cms, Devices: w.DeviceBindingCommands(), DeviceBindings: devices, Auth: auth,
		Namespaces: w.NamespaceCommands(), NamespaceView: nss, Leases: w.LeaseCommands(), LeaseView: leases,
		ReplicaSets: w.ReplicaSetCommands(), ReplicaSetView: wv.ReplicaSets, Deployments: w.DeploymentCommands(), DeploymentView: wv.Deployments,
		DaemonSets: w.DaemonSetCommands(), DaemonSetView: wv.DaemonSets, Jobs: w.JobCommands(), JobView: wv.Jobs,
		CronJobs: w.CronJobCommands(), CronJobView: wv.CronJobs,
		StatefulSets: w.StatefulSetCommands(), StatefulSetView: wv.StatefulSets,
		ControllerRevisions: w.ControllerRevisionCommands(), ControllerRevisionView: wv.Revisions,
		PodDisruptionBudgets: w.PodDisruptionBudgetCommands(), PodDisruptionBudgetView: wv.Budgets, Evictions: w.Evictions(),
		Reconcilers: recs, Retention: retention, UI: webui.Handler(httpapi.UIPath),
		WritePath: w.WriteQueue(), Heartbeats: heard, Registerer: reg, WhatIf: wi.Runner, Started: st.Load,
	}, httpapi.Config{Thresholds: cfg.Thresholds, Version: cfg.Version, Profiling: cfg.Profiling,
		NodeMonitorGracePeriod: cfg.Health.GracePeriod, AnonymousHosts: anonymousHosts(cfg), AnonymousIPHosts: anonymousIPHosts(cfg),
		MaxWatchesPerUser: cfg.Security.maxWatchesPerUser(), KubeletTokenDir: cfg.Kubelet.TokenDir,
		ExpensiveReads: cfg.ExpensiveReads, ReadTimeout: cfg.ReadTimeout, WhatIfTimeout: cfg.WhatIfTimeout, WhatIfMaxWindow: cfg.WhatIfMaxWindow,
		MaxRequestsInflight: cfg.MaxRequestsInflight, MaxMutatingRequestsInflight: cfg.MaxMutatingRequestsInflight,
		MaxHeartbeatsInflight: cfg.MaxHeartbeatsInflight})
}

// newWatchHub follows the log for every watch. It starts before the API
// listens, once the API has told it about every resource, and its watches
// end as soon as the API begins to shut down: a watch would otherwise
// hold the shutdown until it timed out.
func newWatchHub(lc fx.Lifecycle, cfg Config, elog events.Log, clk clock.WithTicker, log *zap.Logger, reg prometheus.Registerer) (*watch.Hub, error) {
	hub, err := watch.NewHub(elog, cfg.Watch, clk, log.Named("watch"), watch.NewMetrics(reg))
	if err != nil {
		return nil, err
	}
	lc.Append(fx.Hook{
		OnStart: hub.Start,
		OnStop:  func(context.Context) error { hub.Stop(); return nil },
	})
	return hub, nil
}

// HTTPServer is the API listener. Its address is known once the app has
// started, which is what lets tests listen on port 0.
type HTTPServer struct {
	srv *http.Server
	ln  net.Listener
	tls bool
}

// Addr is the address the API listens on.
func (h *HTTPServer) Addr() string { return h.ln.Addr().String() }

// URL is the API's base URL: https when it serves TLS.
func (h *HTTPServer) URL() string {
	if h.tls {
		return "https://" + h.Addr()
	}
	return "http://" + h.Addr()
}

func newHTTPServer(lc fx.Lifecycle, cfg Config, api *httpapi.Server, hub *watch.Hub, log *zap.Logger) *HTTPServer {
	h := &HTTPServer{srv: &http.Server{
		Handler: api,
		// A slow or stalled client must not hold a connection forever;
		// watches (long-lived responses) set their own deadlines.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}}
	// Shutdown waits for every request to end; watches end when the hub
	// stops (with a last bookmark, so that clients resume exactly).
	h.srv.RegisterOnShutdown(hub.Stop)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			tlsConfig, err := serverTLS(cfg.Security)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", cfg.Listen)
			if err != nil {
				return fmt.Errorf("--listen %s: %w", cfg.Listen, err)
			}
			if tlsConfig != nil {
				ln, h.tls = tls.NewListener(ln, tlsConfig), true
			}
			h.ln = ln
			log.Info("serving the API", zap.String("url", h.URL()), zap.String("web_view", h.URL()+"/ui/"))
			if cfg.Demo > 0 {
				// Where to look, at the address herd really took (which
				// --listen or HERD_LISTEN chose), for whoever ran make run.
				log.Info("look at the fleet: kubectl --server " + h.URL() + " get nodes -o wide   or   bin/herd node list --server " + h.URL() + "   or a browser at " + h.URL() + "/")
			}
			go func() {
				if err := h.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("API listener stopped", zap.Error(err))
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			// The API stops first (fx stops in the reverse order of start):
			// requests under way finish, then the reconcilers and the log
			// close behind it.
			log.Info("shutting down: the API takes no new requests and finishes those under way", zap.String("url", h.URL()))
			err := h.srv.Shutdown(ctx)
			log.Info("the API has stopped", zap.Error(err))
			return err
		},
	})
	return h
}

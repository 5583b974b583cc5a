package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"herd/adapters/illumos"
	"herd/domain"
)

// DefaultMetricsListen is where the agent serves /metrics and /healthz:
// loopback, so that nothing beyond the host reads them unless the
// operator says so, on the port commonly left to exporters of this kind.
const DefaultMetricsListen = "127.0.0.1:9464"

// agentMetrics are the agent's own Prometheus metrics, in a registry of
// the agent's own (herd serve's are not mixed in).
type agentMetrics struct {
	registry          *prometheus.Registry
	podsRunning       prometheus.Gauge
	heartbeats        *prometheus.CounterVec
	commandDuration   *prometheus.HistogramVec
	commandFailures   *prometheus.CounterVec
	commandRetries    *prometheus.CounterVec
	orphansRemoved    *prometheus.CounterVec
	orphanRemovalErrs prometheus.Counter
	podRelists        prometheus.Counter
}

func newAgentMetrics() *agentMetrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &agentMetrics{
		registry: reg,
		podsRunning: prometheus.NewGauge(prometheus.GaugeOpts{Name: "herd_agent_pods_running",
			Help: "Pods of this node that herd reports Running, as of the last heartbeat."}),
		heartbeats: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_agent_heartbeats_total",
			Help: "Heartbeats sent to herd, by result (sent, failed)."}, []string{"result"}),
		commandDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "herd_agent_runtime_command_duration_seconds",
			Help:    "How long each run of a host command (zoneadm, zonecfg, dladm, zfs, ipadm) took, by program.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300}}, []string{"command"}),
		commandFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_agent_runtime_command_failures_total",
			Help: "Runs of a host command that failed, by program."}, []string{"command"}),
		commandRetries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_agent_runtime_command_retries_total",
			Help: "Host commands run again after failing on a busy or locked resource, by program."}, []string{"command"}),
		orphansRemoved: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_agent_orphans_removed_total",
			Help: "Zones, VNICs and datasets herd made for pods that no longer exist, removed, by kind."}, []string{"kind"}),
		orphanRemovalErrs: prometheus.NewCounter(prometheus.CounterOpts{Name: "herd_agent_orphan_removal_failures_total",
			Help: "Attempts to remove a leftover of a pod that no longer exists that failed."}),
		podRelists: prometheus.NewCounter(prometheus.CounterOpts{Name: "herd_agent_pod_watch_relists_total",
			Help: "Lists of the node's pods after herd answered a watch with 410 Expired."}),
	}
	reg.MustRegister(m.podsRunning, m.heartbeats, m.commandDuration, m.commandFailures, m.commandRetries,
		m.orphansRemoved, m.orphanRemovalErrs, m.podRelists)
	for _, r := range []string{"sent", "failed"} {
		m.heartbeats.WithLabelValues(r)
	}
	return m
}

// instrumentedRunner measures every run of a host command.
type instrumentedRunner struct {
	run illumos.Runner
	m   *agentMetrics
}

// Run implements illumos.Runner.
func (r instrumentedRunner) Run(ctx context.Context, c illumos.Command) ([]byte, error) {
	start := time.Now()
	out, err := r.run.Run(ctx, c)
	r.m.commandDuration.WithLabelValues(c.Name).Observe(time.Since(start).Seconds())
	if err != nil {
		r.m.commandFailures.WithLabelValues(c.Name).Inc()
	}
	return out, err
}

// countingRegistry counts the heartbeats sent through it.
type countingRegistry struct {
	Registry
	m *agentMetrics
}

// Heartbeat implements Registry.
func (r countingRegistry) Heartbeat(ctx context.Context, name string, m domain.Metrics) (domain.Node, error) {
	n, err := r.Registry.Heartbeat(ctx, name, m)
	result := "sent"
	if err != nil {
		result = "failed"
	}
	r.m.heartbeats.WithLabelValues(result).Inc()
	return n, err
}

// MetricsServer serves the agent's /metrics and /healthz on
// --metrics-listen.
type MetricsServer struct {
	ln  net.Listener
	srv *http.Server
}

// URL is the server's base URL, once started.
func (s *MetricsServer) URL() string {
	if s == nil || s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String()
}

// newMetricsServer serves the agent's registry from the app's start to
// its stop; an empty --metrics-listen serves nothing.
func newMetricsServer(lc fx.Lifecycle, cfg AgentConfig, m *agentMetrics, log *zap.Logger) *MetricsServer {
	s := &MetricsServer{}
	if cfg.MetricsListen == "" {
		return s
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.MetricsListen)
			if err != nil {
				return fmt.Errorf("--metrics-listen %s: %w", cfg.MetricsListen, err)
			}
			s.ln = ln
			go func() {
				if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("metrics server stopped", zap.Error(err))
				}
			}()
			log.Info("serving /metrics and /healthz", zap.String("address", ln.Addr().String()))
			return nil
		},
		OnStop: func(ctx context.Context) error { return s.srv.Shutdown(ctx) },
	})
	return s
}

// validMetricsListen checks --metrics-listen: empty, or host:port.
func validMetricsListen(addr string) error {
	if addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("--metrics-listen %q: want host:port (127.0.0.1:9464), or empty for none: %w", addr, err)
	}
	return nil
}

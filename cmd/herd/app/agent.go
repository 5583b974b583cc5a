package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/herdclient"
	"herd/adapters/host"
	"herd/adapters/illumos"
	"herd/adapters/mockruntime"
	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/termination"
	"herd/reconcilers/zones"
)

// AgentConfig is everything an operator tunes on `herd agent`.
type AgentConfig struct {
	// Server is herd serve's URL (--server).
	Server string
	// Token is the bearer token for a herd with --token-auth-file
	// (--token): the node's own, user system:node:NAME in group
	// system:nodes.
	Token string
	// CAFile is the PEM file of the CA that signed herd's certificate
	// (--certificate-authority); empty for the system's.
	CAFile string
	// Node is the host the agent runs and how.
	Node NodeConfig
	// PollInterval is how often the agent checks every pod against its
	// runtime (--poll-interval); new and changed pods come at once through
	// the watch (podFollower).
	PollInterval time.Duration
	// LogLevel and LogFormat are as for serve.
	LogLevel  string
	LogFormat string
	// Version is herd's build version.
	Version string
	// Reconcilers tunes the agent's two reconcilers' workers and retries.
	Reconcilers reconcilers.Config
	// TerminationPoll is how often a pod asked to shut down is checked
	// until it stops or its deadline comes.
	TerminationPoll time.Duration
	// MockRuntime tunes the mock runtime (--mock-shutdown-delay).
	MockRuntime mockruntime.Config
	// MetricsListen is where /metrics and /healthz are served
	// (--metrics-listen, default 127.0.0.1:9464; empty for none).
	MetricsListen string
	// WatchServices are the services whose state every heartbeat carries
	// (--watch-service): systemd units on Linux (nginx is nginx.service),
	// SMF services on illumos. herd derives ServicesHealthy from them.
	WatchServices []string
}

// DefaultAgentConfig is an agent of a mock node polling herd every 2 s.
func DefaultAgentConfig() AgentConfig {
	return AgentConfig{
		Server:          "http://127.0.0.1:8080",
		Node:            DefaultNodeConfig(),
		PollInterval:    2 * time.Second,
		LogLevel:        "info",
		LogFormat:       "console",
		Version:         "dev",
		Reconcilers:     reconcilers.DefaultConfig(),
		TerminationPoll: termination.DefaultConfig().PollPeriod,
		MetricsListen:   DefaultMetricsListen,
	}
}

// Validate names every setting that is wrong.
func (c AgentConfig) Validate() error {
	errs := []error{c.Node.Validate("--node-name")}
	if _, err := herdclient.New(herdclient.Config{Server: c.Server}); err != nil {
		errs = append(errs, err)
	}
	if c.PollInterval <= 0 {
		errs = append(errs, fmt.Errorf("--poll-interval %s: want a positive duration", c.PollInterval))
	}
	errs = append(errs, validateLogging(c.LogLevel, c.LogFormat)...)
	if err := validMetricsListen(c.MetricsListen); err != nil {
		errs = append(errs, err)
	}
	if err := c.MockRuntime.Validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.termination(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, validWatchServices(c.WatchServices)...)
	return errors.Join(errs...)
}

// validWatchServices checks --watch-service: no empty name, and no
// service named twice (nginx and nginx.service are the same unit).
func validWatchServices(names []string) []error {
	var errs []error
	seen := map[string]string{}
	for _, n := range names {
		key := host.ServiceName(n)
		switch first, dup := seen[key]; {
		case strings.TrimSpace(n) == "":
			errs = append(errs, errors.New("--watch-service: a service name must not be empty"))
		case dup:
			errs = append(errs, fmt.Errorf("--watch-service %q: the same service as %q, given already", n, first))
		default:
			seen[key] = n
		}
	}
	return errs
}

// termination is the node's termination reconciler's configuration: it
// lists the node's pods every poll interval.
func (c AgentConfig) termination() (termination.Config, error) {
	tc := termination.DefaultConfig()
	tc.PollPeriod, tc.ResyncPeriod = c.TerminationPoll, c.PollInterval
	return tc, tc.Validate()
}

// AgentOptions is the whole of `herd agent` as fx options: the node's
// presence (registration, heartbeats, deregistration) and the zones and
// termination reconcilers of herd serve, run for this node alone against
// its local runtime, reading and writing through herd's HTTP API. Tests
// append options of their own (a fake clock, a simulated host).
func AgentOptions(cfg AgentConfig, extra ...fx.Option) fx.Option {
	return fx.Options(
		fx.Supply(cfg),
		fx.WithLogger(newFxLogger),
		fx.Provide(
			func(cfg AgentConfig) (*zap.Logger, error) {
				l, err := NewLogger(Config{LogLevel: cfg.LogLevel, LogFormat: cfg.LogFormat})
				if err != nil {
					return nil, err
				}
				return l.With(zap.String("node", cfg.Node.Name)), nil
			},
			func() clock.WithTicker { return clock.RealClock{} },
			func(c clock.WithTicker) clock.Clock { return c },
			newAgentClient,
			func(cfg AgentConfig) (host.Source, error) { return host.Local(cfg.Node.hostConfig()) },
			newServiceManager,
			newRunner,
			newAgentRuntime,
			newAgentMetrics,
			func(m *agentMetrics) (prometheus.Registerer, *reconcilers.Metrics) {
				return m.registry, reconcilers.NewMetrics(m.registry)
			},
			newMetricsServer,
			func(cfg AgentConfig) reconcilers.Config {
				rc := cfg.Reconcilers
				rc.Enabled = []string{"*"}
				return rc
			},
		),
		// The metrics listener first: fx starts hooks in the order they
		// were added, so /healthz answers before the node registers.
		fx.Invoke(func(*MetricsServer) {}, startPresence, startOrphanCollection),
		reconcilers.Provide(func(cfg AgentConfig, c *herdclient.Client, rt podRuntime, clk clock.Clock, log *zap.Logger) (*zones.Reconciler, error) {
			own := zones.RuntimesFunc(func(n domain.Node) (zones.Runtime, bool) { return rt, n.Name == cfg.Node.Name })
			return zones.New(zones.Config{ResyncPeriod: cfg.PollInterval, Node: cfg.Node.Name}, c, own, clk, log)
		}),
		reconcilers.Provide(func(cfg AgentConfig, c *herdclient.Client, rt podRuntime, clk clock.Clock, log *zap.Logger) (*termination.NodeReconciler, error) {
			tc, err := cfg.termination()
			if err != nil {
				return nil, err
			}
			return termination.NewNode(tc, cfg.Node.Name, c, rt, clk, log)
		}),
		reconcilers.Module,
		fx.Invoke(startPodFollower),
		fx.Options(extra...),
	)
}

// The agent's client is both reconcilers' view of herd.
var (
	_ zones.Pods           = (*herdclient.Client)(nil)
	_ termination.NodePods = (*herdclient.Client)(nil)
	_ Registry             = (*herdclient.Client)(nil)
)

func newAgentClient(cfg AgentConfig) (*herdclient.Client, error) {
	transport, err := clientTransport(cfg.CAFile)
	if err != nil {
		return nil, err
	}
	return herdclient.New(herdclient.Config{Server: cfg.Server, Token: cfg.Token, Transport: transport, UserAgent: "herd-agent/" + cfg.Version})
}

// newAgentRuntime is the runtime of the agent's node: its own mock, or
// zones on this host.
func newAgentRuntime(lc fx.Lifecycle, cfg AgentConfig, run illumos.Runner, clk clock.Clock, log *zap.Logger, m *agentMetrics) (podRuntime, error) {
	return newPodRuntime(lc, cfg.Node, func() (*mockruntime.Runtime, error) { return mockruntime.New(cfg.MockRuntime, clk) }, run, clk, log, m)
}

// startPresence registers the node as the agent starts and deregisters
// it as the agent stops, with herd.dev/runtime=agent: herd serve leaves
// the node's pods to the agent.
func startPresence(lc fx.Lifecycle, cfg AgentConfig, c *herdclient.Client, src host.Source, svc host.ServiceManager,
	clk clock.WithTicker, log *zap.Logger, m *agentMetrics) {
	jobs := func(ctx context.Context) (int, error) {
		pods, err := c.List(ctx, cfg.Node.Name)
		n := 0
		for _, p := range pods {
			if p.ActiveJob() {
				n++
			}
		}
		if err == nil {
			m.podsRunning.Set(float64(n))
		}
		return n, err
	}
	labels := map[string]string{domain.LabelRuntime: domain.RuntimeAgent}
	p := NewPresence(cfg.Node, countingRegistry{Registry: c, m: m}, src, jobs, labels, cfg.Version, clk, log)
	if svc != nil && len(cfg.WatchServices) > 0 {
		names := make([]string, len(cfg.WatchServices))
		for i, n := range cfg.WatchServices {
			names[i] = host.ServiceName(n)
		}
		p.WatchServices(svc, names)
	}
	lc.Append(fx.StartStopHook(p.Start, p.Stop))
	log.Info("agent configured", zap.String("server", c.Server()), zap.String("runtime", cfg.Node.Runtime),
		zap.Strings("watchServices", cfg.WatchServices))
}

// newServiceManager is the host's service manager when the agent watches
// services (--watch-service), nil when it watches none: a host without
// systemd runs an agent that watches nothing.
func newServiceManager(cfg AgentConfig) (host.ServiceManager, error) {
	if len(cfg.WatchServices) == 0 {
		return nil, nil
	}
	return host.LocalServices()
}

// clientTransport trusts the CA in caFile besides nothing else, or the
// system's CAs (Go's default transport) when caFile is empty.
func clientTransport(caFile string) (http.RoundTripper, error) {
	if caFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--certificate-authority: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--certificate-authority %s: no PEM certificate in it", caFile)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}

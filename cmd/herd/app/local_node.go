package app

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/host"
	"herd/domain"
	"herd/events"
	"herd/projections"
)

// localRegistry registers `herd serve --local-node`'s own host through
// herd's unit of work: the same commands an agent's requests run.
type localRegistry struct {
	nodes      domain.Executor[domain.Node, domain.NodeCommand]
	thresholds domain.Thresholds
}

var _ Registry = localRegistry{}

func (l localRegistry) ctx(ctx context.Context, node string) context.Context {
	return events.WithMetadata(ctx, events.Metadata{Actor: "system:node:" + node, Source: "local-node"})
}

func (l localRegistry) Register(ctx context.Context, reg domain.Registration) (domain.Node, error) {
	return l.nodes.Execute(l.ctx(ctx, reg.Name), domain.Key{Name: reg.Name}, domain.RegisterNode{Registration: reg})
}

func (l localRegistry) Heartbeat(ctx context.Context, name string, m domain.Metrics) (domain.Node, error) {
	return l.nodes.Execute(l.ctx(ctx, name), domain.Key{Name: name}, domain.RecordHeartbeat{Metrics: &m, Thresholds: l.thresholds})
}

func (l localRegistry) Deregister(ctx context.Context, name string) error {
	_, err := l.nodes.Execute(l.ctx(ctx, name), domain.Key{Name: name}, domain.DeregisterNode{})
	return err
}

// localNodeOption runs `herd serve --local-node NAME`: herd registers its
// own host as NAME, heartbeats with the host's metrics and runs the node's
// pods in the process on the node's runtime (nodeRuntimes), through the
// same reconcilers as every other node's. Without --local-node it does
// nothing.
func localNodeOption(cfg Config) fx.Option {
	if cfg.LocalNode.Name == "" {
		return fx.Options()
	}
	return fx.Options(
		fx.Provide(func(cfg Config) (host.Source, error) { return host.Local(cfg.LocalNode.hostConfig()) }),
		fx.Invoke(func(lc fx.Lifecycle, cfg Config, nodes domain.Executor[domain.Node, domain.NodeCommand], pods *projections.PodView, src host.Source,
			clk clock.WithTicker, log *zap.Logger) {
			jobs := func(ctx context.Context) (int, error) { return runningPods(ctx, pods, cfg.LocalNode.Name) }
			p := NewPresence(cfg.LocalNode, localRegistry{nodes: nodes, thresholds: cfg.Thresholds}, src, jobs, nil, cfg.Version, clk, log)
			lc.Append(fx.StartStopHook(p.Start, p.Stop))
		}),
	)
}

// runningPods counts the node's active jobs among herd's pods: those
// Running on it, and the Job pods Pending there (domain.Pod.ActiveJob).
func runningPods(ctx context.Context, pods *projections.PodView, node string) (int, error) {
	herd := domain.SourceHerd
	list, _, err := pods.List(ctx, projections.PodFilter{NodeName: node, Source: &herd})
	n := 0
	for _, p := range list {
		if p.ActiveJob() {
			n++
		}
	}
	return n, err
}

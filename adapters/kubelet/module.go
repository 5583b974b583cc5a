package kubelet

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// Module runs herd's kubelet pollers for the life of the app. It needs a
// Config, the store, the Writer, herd's clock, a logger and a Prometheus
// registerer; it provides the *Manager, which also joins herd's
// reconcilers (as "kubelet") to follow changes to the set of targets.
var Module = fx.Options(
	fx.Provide(
		NewMetrics,
		projections.NewKubeletTargetView,
		func(w *projections.Writer, log events.Log) Sink {
			return &Commands{Nodes: w.NodeCommands(), Pods: podStore{w.PodBatch(), projections.NewPodView(log)},
				Namespaces: namespaceStore{w, projections.NewNamespaceView(log)}}
		},
		func(cfg Config, sink Sink, w *projections.Writer, view *projections.KubeletTargetView, clk clock.Clock, log *zap.Logger, m *Metrics) (*Manager, error) {
			return NewManager(cfg, sink, w.KubeletTargetsCommands(), view, clk, log, m)
		},
	),
	reconcilers.Provide(func(m *Manager) *Manager { return m }),
	fx.Invoke(func(lc fx.Lifecycle, m *Manager) {
		lc.Append(fx.Hook{OnStart: m.Start, OnStop: m.Stop})
	}),
)

// podStore joins the writer's batched pod updates and the pod view's
// lists into a PodStore.
type podStore struct {
	domain.BatchExecutor[domain.Pod, domain.PodCommand]
	*projections.PodView
}

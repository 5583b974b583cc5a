package app

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/herdclient"
	"herd/adapters/illumos"
	"herd/domain"
)

// orphanRemover is a runtime that can find and remove what it made for
// pods that no longer exist; the zone runtime is one, the mock (whose
// pods die with the process) is not.
type orphanRemover interface {
	RemoveOrphans(ctx context.Context, live func(context.Context) ([]domain.Pod, error)) ([]illumos.Removed, error)
}

var _ orphanRemover = (*illumos.Runtime)(nil)

// startOrphanCollection removes, as the agent starts and every poll
// interval after, the zones, VNICs and datasets herd made on this host
// for pods that no longer exist: an agent that was down while its pods
// were deleted and garbage-collected never heard of their end. Each
// removal is logged and counted (herd_agent_orphans_removed_total).
func startOrphanCollection(lc fx.Lifecycle, cfg AgentConfig, rt podRuntime, c *herdclient.Client, clk clock.WithTicker, m *agentMetrics, log *zap.Logger) {
	gc, ok := rt.(orphanRemover)
	if !ok {
		return
	}
	log = log.Named("orphans")
	live := func(ctx context.Context) ([]domain.Pod, error) { return c.List(ctx, cfg.Node.Name) }
	pass := func(ctx context.Context) {
		removed, err := gc.RemoveOrphans(ctx, live)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("could not look for leftovers of deleted pods", zap.Error(err))
			}
			return
		}
		for _, r := range removed {
			if r.Err != nil {
				m.orphanRemovalErrs.Inc()
				log.Warn("could not remove a leftover of a deleted pod", zap.String("kind", r.Kind), zap.String("name", r.Name), zap.Error(r.Err))
				continue
			}
			m.orphansRemoved.WithLabelValues(r.Kind).Inc()
			log.Info("removed a leftover of a deleted pod", zap.String("kind", r.Kind), zap.String("name", r.Name))
		}
	}
	t := clk.NewTicker(cfg.PollInterval) // now: a clock step just after start counts
	runInBackground(lc, func(ctx context.Context) {
		defer t.Stop()
		for {
			pass(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C():
			}
		}
	})
}

package app

import (
	"context"
	"errors"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// newCompactor runs the heartbeat retention policy every interval of the
// injected clock while herd serves, from start to stop, on the one
// replica of those sharing the log that leads the job
// projections.RetentionJob: on SQLite this herd, at once; on PostgreSQL
// the replica that holds the job's advisory lock, and another once it
// goes.
func newCompactor(lc fx.Lifecycle, cfg Config, w *projections.Writer, m *projections.Metrics, rm *reconcilers.Metrics,
	clk clock.WithTicker, log *zap.Logger, leadership events.Leadership) (*projections.Compactor, error) {
	c, err := projections.NewCompactor(w, cfg.Compaction, m)
	if err != nil {
		return nil, err
	}
	if !c.Enabled() {
		log.Info("heartbeat retention off: every heartbeat is kept")
		return c, nil
	}
	log = log.Named("compaction")
	leading := func(leads bool) {
		rm.Leading(projections.RetentionJob, leads)
		if leads {
			log.Info("this replica runs the heartbeat retention", zap.Duration("heartbeat_retention", cfg.Compaction.Retention))
		}
	}
	runInBackground(lc, func(ctx context.Context) {
		leadJob(ctx, leadership, projections.RetentionJob, log, leading, func(ctx context.Context) { compactEvery(ctx, c, clk, log) })
	})
	return c, nil
}

// compactEvery runs a round of c every c.Interval() until ctx ends.
func compactEvery(ctx context.Context, c *projections.Compactor, clk clock.WithTicker, log *zap.Logger) {
	ticker := clk.NewTicker(c.Interval())
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		stats, err := c.Compact(ctx)
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			log.Warn("heartbeat compaction failed; the next round retries", zap.Error(err))
		case stats.Deleted > 0:
			log.Debug("old heartbeats deleted", zap.Int("events", stats.Deleted), zap.Int64("through", stats.Through))
		}
	}
}

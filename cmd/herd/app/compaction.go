package app

import (
	"context"
	"errors"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/events"
	"herd/projections"
)

// newCompactor runs the heartbeat retention policy every interval of the
// injected clock while herd serves, from start to stop.
func newCompactor(lc fx.Lifecycle, cfg Config, w *projections.Writer, m *projections.Metrics,
	clk clock.WithTicker, log *zap.Logger, elog events.Log) (*projections.Compactor, error) {
	if events.SQLiteStore(elog) == nil && cfg.Compaction.Retention > 0 {
		log.Warn("heartbeat retention runs on SQLite only for now: on PostgreSQL every heartbeat is kept",
			zap.Duration("heartbeat_retention", cfg.Compaction.Retention))
		cfg.Compaction.Retention = 0
	}
	c, err := projections.NewCompactor(w, cfg.Compaction, m)
	if err != nil {
		return nil, err
	}
	if !c.Enabled() {
		log.Info("heartbeat retention off: every heartbeat is kept")
		return c, nil
	}
	log = log.Named("compaction")
	ticker := clk.NewTicker(c.Interval()) // now: a clock step just after start counts
	runInBackground(lc, func(ctx context.Context) {
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
	})
	return c, nil
}

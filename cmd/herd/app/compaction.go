package app

import (
	"context"
	"errors"
	"sync"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/projections"
)

// newCompactor runs the heartbeat retention policy every interval of the
// injected clock while herd serves, from start to stop.
func newCompactor(lc fx.Lifecycle, cfg Config, w *projections.Writer, m *projections.Metrics,
	clk clock.WithTicker, log *zap.Logger) (*projections.Compactor, error) {
	c, err := projections.NewCompactor(w, cfg.Compaction, m)
	if err != nil {
		return nil, err
	}
	if !c.Enabled() {
		log.Info("heartbeat retention off: every heartbeat is kept")
		return c, nil
	}
	log = log.Named("compaction")
	ctx, cancel := context.WithCancel(context.Background())
	var done sync.WaitGroup
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ticker := clk.NewTicker(c.Interval())
			done.Go(func() {
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
			return nil
		},
		OnStop: func(context.Context) error {
			cancel()
			done.Wait()
			return nil
		},
	})
	return c, nil
}

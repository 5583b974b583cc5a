package app

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"herd/projections"
)

// watchWriteQueue says when herd falls behind: the write queue counts as
// behind once its oldest write has waited --write-behind-threshold, herd
// logs one line when it falls behind and one when it catches up (not one
// per request), and /metrics shows the oldest write's age and how many
// wait, at every scrape.
func watchWriteQueue(cfg Config, w *projections.Writer, reg prometheus.Registerer, log *zap.Logger) error {
	q := w.WriteQueue()
	log = log.Named("writes")
	q.SetBehind(cfg.WriteBehind, func(behind bool, oldest time.Duration) {
		if behind {
			log.Warn("herd is behind: writes wait for their commit; requests other than node heartbeats are refused with 429 until it catches up",
				zap.Duration("oldest", oldest), zap.Int("waiting", q.Waiting()), zap.Duration("threshold", cfg.WriteBehind))
			return
		}
		log.Info("herd caught up: writes commit without waiting", zap.Duration("oldest", oldest))
	})
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "herd_write_queue_oldest_seconds",
			Help: "How long the oldest write waiting for its commit has waited, on the machine's monotonic clock (0 when none waits). Past --write-behind-threshold herd counts as behind.",
		}, func() float64 { oldest, _ := q.Behind(); return oldest.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "herd_write_queue_commands",
			Help: "Writes waiting for their commit now, the one being committed included.",
		}, func() float64 { return float64(q.Waiting()) }),
	} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("the write queue's metrics: %w", err)
		}
	}
	return nil
}

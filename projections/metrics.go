package projections

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"herd/projections/command"
)

// Metrics are the log's own Prometheus metrics: the write path's
// (command.Metrics) and the heartbeat retention policy's.
type Metrics struct {
	commands    *command.Metrics
	compactions prometheus.Histogram
	compactTime prometheus.Histogram
}

// NewMetrics registers the log's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		commands: command.NewMetrics(reg),
		compactions: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "herd_log_compaction_batch_events",
			Help: "Events deleted by one batch of the heartbeat retention policy (one command of a group commit).",
			// Up to the batch size (256 by default).
			Buckets: prometheus.ExponentialBuckets(1, 2, 10),
		}),
	}
	m.compactTime = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "herd_log_compaction_batch_duration_seconds",
		Help: "Time one batch of the heartbeat retention policy spent deleting inside its group commit's write transaction.",
		// A batch of 256 takes about a millisecond; the top buckets
		// would show one holding the write lock too long.
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 12),
	})
	reg.MustRegister(m.compactions, m.compactTime)
	return m
}

// SetHead records the log head, as read at start-up.
func (m *Metrics) SetHead(position int64) { m.command().SetHead(position) }

// command is the write path's part, nil when m is.
func (m *Metrics) command() *command.Metrics {
	if m == nil {
		return nil
	}
	return m.commands
}

// observeCompaction records one batch of n deleted events that took
// took inside the write transaction.
func (m *Metrics) observeCompaction(n int, took time.Duration) {
	if m != nil {
		m.compactions.Observe(float64(n))
		m.compactTime.Observe(took.Seconds())
	}
}

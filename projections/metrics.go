package projections

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the log's own Prometheus metrics, observed by the Writer.
type Metrics struct {
	appends       prometheus.Counter
	appendLatency prometheus.Histogram
	head          prometheus.Gauge
}

// NewMetrics registers the log's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		appends: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herd_events_appended_total",
			Help: "Events appended to the log.",
		}),
		appendLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "herd_append_duration_seconds",
			Help: "Time to append one batch of events inside its transaction.",
			// Appends take tens of microseconds; the top buckets catch a
			// writer waiting on the SQLite write lock.
			Buckets: prometheus.ExponentialBuckets(0.00001, 4, 10),
		}),
		head: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "herd_log_head_position",
			Help: "Global position of the newest event in the log.",
		}),
	}
	reg.MustRegister(m.appends, m.appendLatency, m.head)
	return m
}

// SetHead records the log head, as read at start-up.
func (m *Metrics) SetHead(position int64) {
	if m != nil {
		m.head.Set(float64(position))
	}
}

func (m *Metrics) observeAppend(n int, took time.Duration, head int64) {
	if m == nil {
		return
	}
	m.appends.Add(float64(n))
	m.appendLatency.Observe(took.Seconds())
	m.head.Set(float64(head))
}

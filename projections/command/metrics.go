package command

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the write path's Prometheus metrics: appends, the log's
// head, and each group commit's size, rejections, time under the write
// lock and decisions taken again.
type Metrics struct {
	appends       prometheus.Counter
	appendLatency prometheus.Histogram
	head          prometheus.Gauge
	groupSize     prometheus.Histogram
	groupRejected prometheus.Counter
	groupLatency  prometheus.Histogram
	redecided     prometheus.Counter
}

// NewMetrics registers the write path's metrics with reg.
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
		groupSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "herd_commit_group_commands",
			Help: "Commands committed together in one write transaction (group commit).",
			// 1 on an idle herd, up to the group limit (512) under load.
			Buckets: prometheus.ExponentialBuckets(1, 2, 10),
		}),
		groupRejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herd_commit_commands_rejected_total",
			Help: "Commands rolled back alone inside a group commit (rejected, conflicting, or failed).",
		}),
		groupLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "herd_commit_duration_seconds",
			Help:    "Time one group commit held the write lock: its commands and the commit's fsync.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 14),
		}),
		redecided: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herd_commit_commands_redecided_total",
			Help: "Commands decided again because their stream moved between their decision and their turn in a group commit.",
		}),
	}
	reg.MustRegister(m.appends, m.appendLatency, m.head, m.groupSize, m.groupRejected, m.groupLatency, m.redecided)
	return m
}

// SetHead records the log head, as read at start-up.
func (m *Metrics) SetHead(position int64) {
	if m != nil {
		m.head.Set(float64(position))
	}
}

func (m *Metrics) observeAppend(n int, took time.Duration) {
	if m == nil {
		return
	}
	m.appends.Add(float64(n))
	m.appendLatency.Observe(took.Seconds())
}

// observeGroup records one group commit of size commands, of which
// committed made it; head is the log head after it (0: nothing appended).
func (m *Metrics) observeGroup(size, committed int, took time.Duration, head int64) {
	if m == nil {
		return
	}
	m.groupSize.Observe(float64(size))
	m.groupRejected.Add(float64(size - committed))
	m.groupLatency.Observe(took.Seconds())
	if head > 0 {
		m.head.Set(float64(head))
	}
}

// observeRedecided counts a command decided again because its stream
// moved.
func (m *Metrics) observeRedecided() {
	if m != nil {
		m.redecided.Inc()
	}
}

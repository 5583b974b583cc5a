package reconcilers

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"herd/events"
)

// Metrics are the framework's Prometheus metrics, labelled by reconciler.
type Metrics struct {
	reconciles *prometheus.CounterVec
	errors     *prometheus.CounterVec
	panics     *prometheus.CounterVec
	poison     *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	depth      *prometheus.GaugeVec
	lag        *prometheus.GaugeVec
	// leader is 1 while this replica leads a job (Job, or another's:
	// Leading), 0 while it waits for another to go.
	leader *prometheus.GaugeVec
	// follower is the dispatcher's, once it follows the log; its reads
	// are herd_reconciler_log_reads_total.
	follower atomic.Pointer[events.Follower]
}

// NewMetrics registers the framework's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	l := []string{"reconciler"}
	m := &Metrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_reconciles_total", Help: "Reconcile calls, by reconciler."}, l),
		errors:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_errors_total", Help: "Reconcile calls that failed."}, l),
		panics:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_panics_total", Help: "Reconcile calls or handlers that panicked and were recovered."}, l),
		poison:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_poison_total", Help: "Keys set aside after failing too often, and events set aside because they could not be read or mapped to keys."}, l),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "herd_reconciler_duration_seconds", Help: "Time spent in Reconcile.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9)}, l),
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "herd_reconciler_queue_depth", Help: "Keys waiting in the work queue."}, l),
		lag:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "herd_reconciler_lag_events", Help: "Events between the log head and the last one the dispatcher handed the reconciler."}, l),
		leader: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "herd_leader",
			Help: "1 while this replica leads the job (runs it), 0 while another replica of those sharing the database does."}, []string{"job"}),
	}
	reads := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "herd_reconciler_log_reads_total",
		Help: "Reads of the log by the reconcilers' dispatcher: about one per announced commit while busy, one per --poll-interval while idle."},
		func() float64 {
			if f := m.follower.Load(); f != nil {
				return float64(f.Reads())
			}
			return 0
		})
	reg.MustRegister(m.reconciles, m.errors, m.panics, m.poison, m.duration, m.depth, m.lag, m.leader, reads)
	return m
}

// Leading sets herd_leader for a job run outside the Manager (the
// retention policy): 1 while this replica leads it, 0 while it waits.
func (m *Metrics) Leading(job string, leads bool) {
	v := 0.0
	if leads {
		v = 1
	}
	m.leader.WithLabelValues(job).Set(v)
}

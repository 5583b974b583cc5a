package reconcilers

import (
	"github.com/prometheus/client_golang/prometheus"
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
}

// NewMetrics registers the framework's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	l := []string{"reconciler"}
	m := &Metrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_reconciles_total", Help: "Reconcile calls, by reconciler."}, l),
		errors:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_errors_total", Help: "Reconcile calls that failed."}, l),
		panics:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_panics_total", Help: "Reconcile calls or handlers that panicked and were recovered."}, l),
		poison:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "herd_reconciler_poison_total", Help: "Keys or messages set aside after failing too often."}, l),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "herd_reconciler_duration_seconds", Help: "Time spent in Reconcile.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9)}, l),
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "herd_reconciler_queue_depth", Help: "Keys waiting in the work queue."}, l),
		lag:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "herd_reconciler_lag_events", Help: "Events between the log head and the last one the reconciler's consumer handled."}, l),
	}
	reg.MustRegister(m.reconciles, m.errors, m.panics, m.poison, m.duration, m.depth, m.lag)
	return m
}

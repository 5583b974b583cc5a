package kubelet

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the adapter's own series, per target and endpoint.
type Metrics struct {
	scrapes  *prometheus.CounterVec
	errors   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	targets  prometheus.Gauge
	up       *prometheus.GaugeVec
}

// NewMetrics registers the adapter's series with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		scrapes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herd_kubelet_scrapes_total",
			Help: "Requests herd made to kubelets, by target and endpoint.",
		}, []string{"target", "endpoint"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herd_kubelet_scrape_errors_total",
			Help: "Requests to kubelets that failed or whose answer herd could not read, by target, endpoint and reason.",
		}, []string{"target", "endpoint", "reason"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "herd_kubelet_scrape_duration_seconds",
			Help:    "How long requests to kubelets took, reading and decoding included, by target and endpoint.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"target", "endpoint"}),
		targets: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "herd_kubelet_targets",
			Help: "Kubelets herd polls.",
		}),
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "herd_kubelet_up",
			Help: "1 when herd's last poll of the kubelet's /healthz and /stats/summary succeeded, else 0.",
		}, []string{"target"}),
	}
	reg.MustRegister(m.scrapes, m.errors, m.duration, m.targets, m.up)
	return m
}

// observe counts one request; f is nil when it succeeded.
func (m *Metrics) observe(target, endpoint string, took time.Duration, f *Failure) {
	if m == nil {
		return
	}
	m.scrapes.WithLabelValues(target, endpoint).Inc()
	m.duration.WithLabelValues(target, endpoint).Observe(took.Seconds())
	if f != nil {
		m.errors.WithLabelValues(target, endpoint, f.Reason).Inc()
	}
}

// setUp records whether the target's heartbeat path works.
func (m *Metrics) setUp(target string, up bool) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.up.WithLabelValues(target).Set(v)
}

// setTargets records how many kubelets are polled.
func (m *Metrics) setTargets(n int) {
	if m != nil {
		m.targets.Set(float64(n))
	}
}

// forget drops a removed target's series.
func (m *Metrics) forget(target string) {
	if m == nil {
		return
	}
	l := prometheus.Labels{"target": target}
	m.scrapes.DeletePartialMatch(l)
	m.errors.DeletePartialMatch(l)
	m.duration.DeletePartialMatch(l)
	m.up.DeletePartialMatch(l)
}

package watch

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the hub's Prometheus metrics. A nil *Metrics records nothing.
type Metrics struct {
	watchers     prometheus.Gauge
	position     prometheus.Gauge
	cutOff       prometheus.Counter
	historyReads prometheus.Counter
	foldErrors   prometheus.Counter
	adopted      prometheus.Counter
	cacheEvents  prometheus.Gauge
	cacheBytes   prometheus.Gauge
	snapshots    *prometheus.CounterVec
	lists        *prometheus.CounterVec
}

// NewMetrics registers the hub's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		watchers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "herd_watchers",
			Help: "Watches open now.",
		}),
		position: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "herd_watch_position",
			Help: "Log position the watch hub has read up to.",
		}),
		cutOff: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herd_watchers_cut_off_total",
			Help: "Watchers cut off for falling further behind the log than the watch cache holds.",
		}),
		historyReads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herd_watch_history_events_read_total",
			Help: "Events read from the log by watches resuming from before the watch cache.",
		}),
		foldErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herd_watch_fold_errors_total",
			Help: "Events the watch hub could not fold into their object (the object stays as it was).",
		}),
		adopted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herd_watch_adopted_total",
			Help: "Objects' states the watch hub took from this process's writes instead of folding their events again.",
		}),
		cacheEvents: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "herd_watch_cache_events",
			Help: "Recent events the watch hub holds in memory for watchers (at most --watch-cache-size).",
		}),
		cacheBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "herd_watch_cache_bytes",
			Help: "Memory the watch hub's recent object versions hold, measured from the objects and their encoded forms (at most --watch-cache-bytes).",
		}),
		snapshots: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herd_snapshots_total",
			Help: "Snapshots of objects the watch hub saved into the log's database (result=\"saved\"), or skipped because their writer was behind or failed (result=\"skipped\").",
		}, []string{"result"}),
		lists: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herd_watch_lists_total",
			Help: "Lists answered from the watch hub's memory (from=\"memory\"), or from the views because the hub had not read the log far enough in time (from=\"views\").",
		}, []string{"from"}),
	}
	reg.MustRegister(m.watchers, m.position, m.cutOff, m.historyReads, m.foldErrors, m.adopted, m.cacheEvents, m.cacheBytes, m.snapshots, m.lists)
	return m
}

func (m *Metrics) addWatchers(n int) {
	if m != nil {
		m.watchers.Add(float64(n))
	}
}

func (m *Metrics) setPosition(pos int64) {
	if m != nil {
		m.position.Set(float64(pos))
	}
}

func (m *Metrics) cutOffOne() {
	if m != nil {
		m.cutOff.Inc()
	}
}

func (m *Metrics) readHistory(n int) {
	if m != nil {
		m.historyReads.Add(float64(n))
	}
}

func (m *Metrics) adoptedOne() {
	if m != nil {
		m.adopted.Inc()
	}
}

func (m *Metrics) foldError() {
	if m != nil {
		m.foldErrors.Inc()
	}
}

func (m *Metrics) setCache(events int, bytes int64) {
	if m != nil {
		m.cacheEvents.Set(float64(events))
		m.cacheBytes.Set(float64(bytes))
	}
}

func (m *Metrics) snapshotsTaken(n int) {
	if m != nil {
		m.snapshots.WithLabelValues("saved").Add(float64(n))
	}
}

func (m *Metrics) snapshotSkipped() {
	if m != nil {
		m.snapshots.WithLabelValues("skipped").Inc()
	}
}

func (m *Metrics) listed(from string) {
	if m != nil {
		m.lists.WithLabelValues(from).Inc()
	}
}

package projections

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"herd/events"
)

// logCollector reports the log's size and what the retention policy has
// deleted, read when Prometheus scrapes rather than kept up to date.
type logCollector struct {
	log events.Log

	events, bytes, free, through, deleted, read *prometheus.Desc
}

// scrapeTimeout bounds the queries of one scrape: a few PRAGMAs and one
// index probe.
const scrapeTimeout = 5 * time.Second

// RegisterLogMetrics registers the collector of log's size and
// compaction with reg. The database's size is the SQLite file's; on
// PostgreSQL, whose size is the database server's to report, it is left
// out.
func RegisterLogMetrics(reg prometheus.Registerer, log events.Log) {
	reg.MustRegister(&logCollector{
		log:     log,
		events:  prometheus.NewDesc("herd_log_events", "Events in the log now: appended and not deleted by the retention policy.", nil, nil),
		bytes:   prometheus.NewDesc("herd_log_database_bytes", "Size of the SQLite database file (the log, its views and their indexes), free pages included.", nil, nil),
		free:    prometheus.NewDesc("herd_log_free_bytes", "Bytes of free pages in the database file, reused by new events before the file grows.", nil, nil),
		through: prometheus.NewDesc("herd_log_compacted_through_position", "The compaction point: a watch or list at an older resourceVersion gets 410 Expired.", nil, nil),
		deleted: prometheus.NewDesc("herd_log_compacted_events_total", "Superseded plain heartbeats deleted by the retention policy.", nil, nil),
		read: prometheus.NewDesc("herd_log_records_read_total", "Records herd's readers of the log (the reconcilers' dispatcher, the watch hub, watches catching up) were given: "+
			"read from the database (from=\"log\"), or from the window of recent records they share, handed on by herd's own commit (SQLite) or read by another of them first (from=\"memory\").", []string{"from"}, nil),
	})
}

func (c *logCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.events, c.bytes, c.free, c.through, c.deleted, c.read} {
		ch <- d
	}
}

func (c *logCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	comp := c.log.Compaction()
	ch <- prometheus.MustNewConstMetric(c.through, prometheus.GaugeValue, float64(comp.Through))
	ch <- prometheus.MustNewConstMetric(c.deleted, prometheus.CounterValue, float64(comp.Deleted))
	memory, log := events.ReadsShared(c.log)
	ch <- prometheus.MustNewConstMetric(c.read, prometheus.CounterValue, float64(memory), "memory")
	ch <- prometheus.MustNewConstMetric(c.read, prometheus.CounterValue, float64(log), "log")
	if head, err := c.log.Head(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(c.events, prometheus.GaugeValue, float64(head-comp.Deleted))
	}
	store := events.SQLiteStore(c.log)
	if store == nil {
		return
	}
	if size, err := store.FileSize(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(size.Bytes))
		ch <- prometheus.MustNewConstMetric(c.free, prometheus.GaugeValue, float64(size.FreeBytes))
	}
}

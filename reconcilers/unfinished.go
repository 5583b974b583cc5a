package reconcilers

import (
	"sync/atomic"

	"k8s.io/client-go/util/workqueue"
)

// unfinished counts a work queue's keys that are queued, or taken by a
// worker and not yet done, through the queue's metrics, which the queue
// updates under its own lock as a key goes in (depth up), is taken
// (depth down) and is done (its work duration observed). Counted from
// outside, a key just taken showed for an instant as neither queued nor
// in flight: between the queue's Get and the worker's count. Counted
// here it is never out of both.
type unfinished struct{ n atomic.Int64 }

var _ workqueue.MetricsProvider = (*unfinished)(nil)

// load is the count now.
func (u *unfinished) load() int64 { return u.n.Load() }

// NewDepthMetric implements workqueue.MetricsProvider: a key queued.
func (u *unfinished) NewDepthMetric(string) workqueue.GaugeMetric { return queuedKeys{u} }

// NewWorkDurationMetric implements workqueue.MetricsProvider: a key done.
func (u *unfinished) NewWorkDurationMetric(string) workqueue.HistogramMetric { return doneKeys{u} }

// NewAddsMetric implements workqueue.MetricsProvider.
func (u *unfinished) NewAddsMetric(string) workqueue.CounterMetric { return noMetric{} }

// NewLatencyMetric implements workqueue.MetricsProvider.
func (u *unfinished) NewLatencyMetric(string) workqueue.HistogramMetric { return noMetric{} }

// NewUnfinishedWorkSecondsMetric implements workqueue.MetricsProvider.
func (u *unfinished) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return noMetric{}
}

// NewLongestRunningProcessorSecondsMetric implements workqueue.MetricsProvider.
func (u *unfinished) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return noMetric{}
}

// NewRetriesMetric implements workqueue.MetricsProvider.
func (u *unfinished) NewRetriesMetric(string) workqueue.CounterMetric { return noMetric{} }

// queuedKeys counts a key in as the queue's depth goes up; its going
// down (a key taken) leaves it counted.
type queuedKeys struct{ u *unfinished }

func (q queuedKeys) Inc() { q.u.n.Add(1) }
func (q queuedKeys) Dec() {}

// doneKeys counts a key out as its work is done.
type doneKeys struct{ u *unfinished }

func (d doneKeys) Observe(float64) { d.u.n.Add(-1) }

type noMetric struct{}

func (noMetric) Inc()            {}
func (noMetric) Set(float64)     {}
func (noMetric) Observe(float64) {}

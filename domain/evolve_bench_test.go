package domain

import "testing"

// BenchmarkEvolveNodeHeartbeat is the cost of one fold during replay, where
// plain heartbeats are most of the log.
func BenchmarkEvolveNodeHeartbeat(b *testing.B) {
	n := fold(registered("web-01"), append([]Event{HeartbeatRecorded{At: at(10), Metrics: healthy()}}, healthyChanges(at(10))...)...)
	e := HeartbeatRecorded{At: at(20), Metrics: healthy()}
	b.ReportAllocs()
	for b.Loop() {
		n = EvolveNode(n, e)
	}
}

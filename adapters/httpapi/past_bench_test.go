package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"herd/projections/watch"
)

// BenchmarkListThePast measures an exact list, over loopback HTTP, of
// 1,000 nodes as they stood right after they registered, each having
// reported 20 heartbeats since: every node's row changed after that
// position, so each is folded from its stream's first events (no
// snapshots yet). It reports the list's time and the events it stands on.
//
//	go test -run '^$' -bench ListThePast -benchtime 20x ./adapters/httpapi/
func BenchmarkListThePast(b *testing.B) {
	a := newWatchAPI(b, watch.Config{History: time.Minute})
	const nodes, beats = 1000, 20
	for i := range nodes {
		name := fmt.Sprintf("n%04d", i)
		a.do(b, name, register(name, nil))
	}
	at := a.head(b)
	for range beats {
		a.clk.Step(10 * time.Second)
		for i := range nodes {
			a.do(b, fmt.Sprintf("n%04d", i), healthy())
		}
	}
	a.clk.Step(time.Hour)
	path := "/api/v1/nodes?resourceVersionMatch=Exact&resourceVersion=" + strconv.FormatInt(at, 10)
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Get(a.url + path) //nolint:noctx // a benchmark's loopback request
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	}
	b.ReportMetric(float64(a.head(b)), "events-in-log")
}

package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"herd/domain"
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

// markSilent is the health rules' mark of a node silent since its last
// report, judged by it, with its condition taints synced.
func markSilent() domain.NodeCommand {
	return domain.NodeFrom(func(n domain.Node) (domain.NodeCommand, error) {
		return domain.NodeSequence{domain.MarkNodeUnreachable{LastHeard: n.LastHeartbeat}, domain.SyncConditionTaints{}}, nil
	})
}

// BenchmarkWhyAYearLong measures herd's explanation of one node, over
// loopback HTTP, whose stream holds a year: a heartbeat a minute (525,600
// of them, as a log keeps them with no retention), a day's outage every
// week (Ready Unknown and the unreachable taints, then back), and silent
// at the end. "now" explains it as it is; "half a year ago" as it was
// then, in the middle of an outage.
//
//	go test -run '^$' -bench WhyAYearLong -benchtime 50x ./adapters/httpapi/
func BenchmarkWhyAYearLong(b *testing.B) {
	a := newWatchAPI(b, watch.Config{History: time.Minute})
	const name = "year-long"
	a.do(b, name, register(name, nil))
	var middle int64
	for day := range 365 {
		if day%7 == 6 {
			a.clk.Step(time.Minute)
			a.do(b, name, markSilent())
			if day == 181 {
				middle = a.head(b)
			}
			a.clk.Step(24*time.Hour - time.Minute)
			a.do(b, name, healthy())
			a.do(b, name, domain.SyncConditionTaints{})
			continue
		}
		for range 24 * 60 {
			a.clk.Step(time.Minute)
			a.do(b, name, healthy())
		}
	}
	a.clk.Step(time.Minute)
	a.do(b, name, markSilent())
	for _, at := range []struct {
		name, query string
	}{{"now", ""}, {"half a year ago", "?asOf=" + strconv.FormatInt(middle, 10)}} {
		b.Run(at.name, func(b *testing.B) {
			path := "/apis/herd.dev/v1/nodes/" + name + "/explanation" + at.query
			for b.Loop() {
				resp, err := http.Get(a.url + path) //nolint:noctx // a benchmark's loopback request
				if err != nil {
					b.Fatal(err)
				}
				var ex NodeExplanation
				err = json.NewDecoder(resp.Body).Decode(&ex)
				_ = resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || len(ex.Items) < 3 {
					b.Fatalf("%s: %v, %d items", resp.Status, err, len(ex.Items))
				}
			}
			b.ReportMetric(float64(a.head(b)), "events-in-log")
		})
	}
}

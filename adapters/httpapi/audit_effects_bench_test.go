package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"herd/events/eventstest"
	"herd/events/pgtest"
)

// BenchmarkAuditEffects measures what a user gets for "what did this
// event lead to": ?causedBy= over loopback HTTP, the whole answer read,
// for an event that led to 10,000 others (a drain of a hundred nodes'
// worth of pods: 100 children, each with 99 of its own) in a log that
// also holds 200,000 heartbeats with no cause — the log of the events
// package's BenchmarkEffects. The target is the list in 100 ms.
//
// Besides the wall time, it reports the CPU time of this process (herd's
// server and the client reading the answer) a list, and the answer's size.
//
//	go test -run '^$' -bench AuditEffects -benchtime 20x ./adapters/httpapi/
func BenchmarkAuditEffects(b *testing.B) {
	for _, e := range []struct {
		name string
		open func(b *testing.B) *testAPI
	}{
		{"SQLite", func(b *testing.B) *testAPI { return newTestAPI(b, nil) }},
		{"PostgreSQL", func(b *testing.B) *testAPI {
			return newTestAPIOn(b, eventstest.OpenPostgres(b, pgtest.URL(b)), nil)
		}},
	} {
		b.Run(e.name, func(b *testing.B) {
			a := e.open(b)
			root := eventstest.EffectsLog(b, a.Log)
			caughtUp(b, a)
			url := a.serve(b).URL + "/apis/herd.dev/v1/auditevents?limit=10000&causedBy=" + root.ID
			var list AuditEventList
			if err := json.Unmarshal(getAll(b, url), &list); err != nil {
				b.Fatal(err)
			}
			if len(list.Items) != 10000 || list.Metadata.Continue == "" {
				b.Fatalf("%d effects (continue %q), want a full page of 10,000", len(list.Items), list.Metadata.Continue)
			}
			var size int
			cpu := eventstest.ProcessCPU(b)
			for b.Loop() {
				size = len(getAll(b, url))
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/list")
			b.ReportMetric(float64((eventstest.ProcessCPU(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/list")
			b.ReportMetric(float64(size), "bytes/list")
		})
	}
}

// caughtUp waits for a's watch hub to have followed the log to its
// head: a hub still reading the 210,000 events just appended would be
// timed with the lists.
func caughtUp(b *testing.B, a *testAPI) {
	b.Helper()
	head, err := a.Log.Head(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	eventstest.Eventually(b, 5*time.Minute, func() bool { return a.Watch.Position() >= head },
		"the watch hub at %d, the log's head at %d", a.Watch.Position(), head)
}

// getAll is the body of a GET of url, which must answer 200.
func getAll(b *testing.B, url string) []byte {
	resp, err := http.Get(url) //nolint:noctx // a benchmark's loopback request
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %s", resp.Status, body)
	}
	return body
}

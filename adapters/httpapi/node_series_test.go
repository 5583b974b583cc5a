package httpapi

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"herd/domain"
)

// seriesPath is web-01's metric history with query.
func seriesPath(node, query string) string {
	p := "/apis/herd.dev/v1/nodes/" + node + "/series"
	if query != "" {
		p += "?" + query
	}
	return p
}

// recordBeats records, for web-01, a heartbeat with cpu percent busy at
// each second after t0 in secs, and returns the log's head after each.
func recordBeats(t *testing.T, api *testAPI, secs []int, cpu func(i int) float64) []int64 {
	t.Helper()
	heads := make([]int64, len(secs))
	for i, sec := range secs {
		api.clock.SetTime(t0.Add(time.Duration(sec) * time.Second))
		pct := cpu(i)
		m := &domain.Metrics{CPUCount: 4, CPUPercent: &pct, Load1: float64(i), MemoryTotalBytes: 8 << 30, MemoryAvailableBytes: 6 << 30,
			DiskTotalBytes: 100 << 30, DiskAvailableBytes: 50 << 30, PIDsMax: 1000, PIDsCurrent: 100, ActiveJobs: i}
		if _, err := api.writer.NodeCommands().Execute(t.Context(), domain.Key{Name: "web-01"}, domain.RecordHeartbeat{Metrics: m}); err != nil {
			t.Fatal(err)
		}
		heads[i] = api.head(t)
	}
	return heads
}

func TestNodeSeries(t *testing.T) {
	// Pages of two heartbeats: every answer below is read over several.
	page := seriesPage
	seriesPage = 2
	t.Cleanup(func() { seriesPage = page })
	api, base := newAuthAPI(t)
	// web-01 registers with its first heartbeat at t0+1s; five more
	// follow, one of them 20 s after the one before.
	api.node(t, "web-01", domain.KindLinux, nil, domain.RecordHeartbeat{})
	heads := recordBeats(t, api, []int{11, 21, 41, 51, 61}, func(i int) float64 { return float64(10 * (i + 1)) })
	at := func(sec int) string { return t0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339) }

	// point is a point as the test compares it: its second after t0, CPU
	// percent and gap, -1 for absent.
	type point struct{ Sec, CPU, Gap float64 }
	seconds := func(p NodeSeriesPoint) point {
		v := func(f *float64) float64 {
			if f == nil {
				return -1
			}
			return *f
		}
		return point{p.Time.Sub(t0).Seconds(), v(p.CPUPercent), v(p.GapSeconds)}
	}
	for _, tc := range []struct {
		name, query string
		want        []point
		truncated   bool
	}{
		{name: "every heartbeat, oldest first, with its gap", want: []point{
			{1, -1, -1}, {11, 10, 10}, {21, 20, 10}, {41, 30, 20}, {51, 40, 10}, {61, 50, 10}}},
		{name: "since: the first point's gap reaches back before it", query: "since=" + at(21), want: []point{
			{21, 20, 10}, {41, 30, 20}, {51, 40, 10}, {61, 50, 10}}},
		{name: "until is exclusive", query: "until=" + at(41), want: []point{
			{1, -1, -1}, {11, 10, 10}, {21, 20, 10}}},
		{name: "since and until", query: "since=" + at(11) + "&until=" + at(50), want: []point{
			{11, 10, 10}, {21, 20, 10}, {41, 30, 20}}},
		{name: "limit keeps the newest", query: "limit=2", truncated: true, want: []point{
			{51, 40, 10}, {61, 50, 10}}},
		{name: "a limit the window does not reach", query: "limit=3&since=" + at(41), want: []point{
			{41, 30, 20}, {51, 40, 10}, {61, 50, 10}}},
		{name: "asOf a position", query: "asOf=" + strconv.FormatInt(heads[1], 10), want: []point{
			{1, -1, -1}, {11, 10, 10}, {21, 20, 10}}},
		{name: "asOf a time, with until", query: "asOf=" + url.QueryEscape(at(51)) + "&until=" + at(41) + "&limit=1", truncated: true, want: []point{
			{21, 20, 10}}},
		{name: "a window with no heartbeat", query: "since=" + at(62)},
		{name: "asOf before the log's first event", query: "asOf=" + url.QueryEscape(t0.Add(-time.Hour).Format(time.RFC3339))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got NodeSeries
			if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: seriesPath("web-01", tc.query), token: "viewer-token"}).body, &got); err != nil {
				t.Fatal(err)
			}
			if got.APIVersion != "herd.dev/v1" || got.Kind != "NodeSeries" || got.Node != "web-01" || got.Thinned != nil {
				t.Errorf("apiVersion %q kind %q node %q thinned %v", got.APIVersion, got.Kind, got.Node, got.Thinned)
			}
			if got.Items == nil {
				t.Fatal("items is null, want a list")
			}
			pts := make([]point, len(got.Items))
			for i, p := range got.Items {
				pts[i] = seconds(p)
			}
			if diff := cmp.Diff(tc.want, pts, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
			if got.Truncated != tc.truncated {
				t.Errorf("truncated %v, want %v", got.Truncated, tc.truncated)
			}
		})
	}

	t.Run("a point carries the heartbeat's figures in JSON", func(t *testing.T) {
		body := mustSend(t, nil, base, 200, req{method: "GET", path: seriesPath("web-01", "limit=1"), token: "viewer-token"}).body
		var raw struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"time": "2026-03-01T09:01:01Z", "position": float64(heads[4]), "cpuPercent": 50.0, "memoryPercent": 25.0,
			"diskPercent": 50.0, "pidPercent": 10.0, "load1": 4.0, "load5": 0.0, "load15": 0.0, "activeJobs": 4.0, "gapSeconds": 10.0}
		if diff := cmp.Diff([]map[string]any{want}, raw.Items); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
	})

	t.Run("a heartbeat without figures is a point with its gap only", func(t *testing.T) {
		var got NodeSeries
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: seriesPath("pico-02", ""), token: "viewer-token"}).body, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Items) != 1 {
			t.Fatalf("pico-02 has %d points, want its one heartbeat: %+v", len(got.Items), got.Items)
		}
		if p := got.Items[0]; p.CPUPercent != nil || p.MemoryPercent != nil || p.Load1 != nil || p.GapSeconds != nil || p.Position == 0 {
			t.Errorf("pico-02's point %+v, want only its time and position", p)
		}
	})

	t.Run("a node herd never saw is 404", func(t *testing.T) {
		a := mustSend(t, nil, base, 404, req{method: "GET", path: seriesPath("ghost", ""), token: "viewer-token"})
		if reason, _ := a.status(t); reason != "NotFound" {
			t.Errorf("reason %q, want NotFound", reason)
		}
	})

	for _, tc := range []struct{ query, param string }{
		{"since=yesterday", "since"},
		{"until=2026-13-01T00:00:00Z", "until"},
		{"since=" + at(41) + "&until=" + at(11), "since"},
		{"limit=0", "limit"},
		{"limit=10001", "limit"},
		{"limit=many", "limit"},
		{"asOf=soon", "asOf"},
	} {
		t.Run("400 for "+tc.query, func(t *testing.T) {
			a := mustSend(t, nil, base, 400, req{method: "GET", path: seriesPath("web-01", tc.query), token: "viewer-token"})
			if reason, msg := a.status(t); reason != "BadRequest" || !strings.Contains(msg, tc.param) {
				t.Errorf("%s: %q, want BadRequest naming %s", reason, msg, tc.param)
			}
		})
	}
}

package whatif

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/projections/command"
)

// TestSeedLeavesOutWhatRetentionThins: the what-if's copy of the log
// before its window leaves out the heartbeats herd's retention policy
// would have deleted (older than the retention, superseded by a later
// one), which are nearly all of a day's log, and still holds every node
// as the whole copy does: its figures, its conditions, its last report.
// Heartbeats within the retention before the window, and an older one
// that carries what the newest does not, stay.
func TestSeedLeavesOutWhatRetentionThins(t *testing.T) {
	ctx := t.Context()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "source.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	source := store.Log()
	t.Cleanup(func() { _ = source.Close() })
	versions := map[string]int64{}
	appendAt := func(stream string, at time.Time, evs ...domain.Event) {
		t.Helper()
		enc, err := command.EncodeEvents(evs)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := source.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Append(ctx, stream, versions[stream], events.Metadata{Actor: "system:node:test"}, at, enc...); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		versions[stream] += int64(len(evs))
	}
	nodes := []string{"agent-1", "agent-2"}
	for _, n := range nodes {
		appendAt(domain.NodeStream(n), start, domain.NodeRegistered{Registration: domain.Registration{Name: n, Kind: domain.KindKubelet}, At: start})
	}
	// An hour of reports a minute apart; agent-2's last report before
	// the window carries no metrics, so its last one with metrics stays.
	var at time.Time
	for i := 1; i <= 60; i++ {
		at = start.Add(time.Duration(i) * time.Minute)
		for k, n := range nodes {
			hb := domain.HeartbeatRecorded{At: at, Metrics: &domain.Metrics{CPUCount: 4, Load1: float64(i + k)}}
			if k == 1 && i >= 30 {
				hb.Metrics = nil
			}
			appendAt(domain.NodeStream(n), at, hb)
		}
		// Labels changed among the reports, one long before the window
		// and one within the retention: the copy keeps each in its place.
		if i == 20 || i == 50 {
			appendAt(domain.NodeStream("agent-1"), at, domain.NodeLabelsChanged{Labels: map[string]string{"zone": fmt.Sprint(i)}, At: at})
		}
	}
	head, err := source.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	since := at.Add(time.Second)

	seeded := func(since time.Time) (events.Log, int64) {
		t.Helper()
		path := filepath.Join(t.TempDir(), events.DatabaseFileName)
		if _, err := seed(ctx, source, head, since, path); err != nil {
			t.Fatal(err)
		}
		s, err := events.Open(ctx, events.Config{Path: path, Scratch: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Log().Close() })
		n, err := s.Log().Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s.Log(), n
	}
	whole, wholeHead := seeded(start) // a window from the log's start: nothing before the cut
	thin, thinHead := seeded(since)
	if wholeHead != head {
		t.Fatalf("the whole copy holds %d events, want %d", wholeHead, head)
	}
	// 2 registrations and 2 label changes; per node the heartbeats of
	// the last 15 minutes (minutes 46 to 60) and the newest before them;
	// agent-2 also its last report with metrics (minute 29), which none
	// after supersedes.
	retained := int(projections.DefaultHeartbeatRetention / time.Minute)
	if want := int64(2 + 2 + 2*(retained+1) + 1); thinHead != want {
		t.Errorf("the thinned copy holds %d events, want %d", thinHead, want)
	}
	// The copy is in the source's order: what stays of the reports
	// before the cut and the other events between them.
	copied, err := thin.ReadAfter(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range copied {
		order = append(order, fmt.Sprintf("%s %s %s", r.RecordedAt.Sub(start), r.Stream, r.Type))
	}
	wantOrder := []string{"0s node/agent-1 NodeRegistered", "0s node/agent-2 NodeRegistered",
		"20m0s node/agent-1 NodeLabelsChanged", "29m0s node/agent-2 HeartbeatRecorded",
		"45m0s node/agent-1 HeartbeatRecorded", "45m0s node/agent-2 HeartbeatRecorded"}
	for i := 46; i <= 60; i++ {
		for _, n := range nodes {
			wantOrder = append(wantOrder, fmt.Sprintf("%s node/%s HeartbeatRecorded", time.Duration(i)*time.Minute, n))
		}
		if i == 50 {
			wantOrder = append(wantOrder, "50m0s node/agent-1 NodeLabelsChanged")
		}
	}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("the thinned copy's events (-want +got):\n%s", diff)
	}
	for _, n := range nodes {
		a, err := projections.NewNodeView(whole).Get(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := projections.NewNodeView(thin).Get(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		// The copy's versions and positions are its own.
		if diff := cmp.Diff(a, b, cmpopts.IgnoreFields(domain.Node{}, "Version", "ResourceVersion")); diff != "" {
			t.Errorf("node %s in the thinned copy (-whole +thinned):\n%s", n, diff)
		}
	}
}

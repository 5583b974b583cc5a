package watch_test

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/projections/watch"
)

// TestTheFleetAtAnyPositionWithAndWithoutSnapshots changes a few nodes at
// random, reading the fleet after each change, with a hub that snapshots
// every second event of a stream. A hub started afterwards (whose only
// base is the head, as after a restart) lists the fleet at every one of
// those positions as it was read then, folding each node from its newest
// snapshot; with every snapshot dropped, a third hub gives the same
// answers, folding more events. After the retention policy thinned the
// heartbeats, the answers with and without snapshots still agree at
// every position, and equal what was read at every position from the
// compaction point on.
func TestTheFleetAtAnyPositionWithAndWithoutSnapshots(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		f := newFixture(t, watch.Config{History: time.Minute, SnapshotEvery: 2})
		testSnapshotsChangeNoAnswer(t, f, f.store.Log())
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		f, replica := newReplicasFixture(t, watch.Config{History: time.Minute, SnapshotEvery: 2})
		testSnapshotsChangeNoAnswer(t, f, replica)
	})
}

func testSnapshotsChangeNoAnswer(t *testing.T, f *fixture, hubLog events.Log) {
	f.start(t)
	rng := rand.New(rand.NewPCG(29, 1)) //nolint:gosec // a test's reproducible choices
	names := []string{"a", "b", "c", "d"}
	then := map[int64][]byte{}
	for range 80 {
		n := names[rng.IntN(len(names))]
		cur, err := f.view.Get(t.Context(), n)
		switch {
		case err != nil || !cur.Exists():
			f.do(t, n, register(n, map[string]string{"round": strconv.Itoa(rng.IntN(100))}))
		case rng.IntN(8) == 0:
			f.do(t, n, domain.DeleteNode{})
		case rng.IntN(3) > 0:
			f.do(t, n, heartbeat(int64(rng.IntN(1000))))
		default:
			labels := maps.Clone(cur.Labels)
			labels["round"] = strconv.Itoa(rng.IntN(100))
			f.do(t, n, domain.SetNodeLabels{Labels: labels, Annotations: cur.Annotations})
		}
		f.clk.Step(10 * time.Second)
		head := f.head(t)
		then[head] = listAt(t, f.hub, head)
	}
	// Every stream is snapshotted after each second event the hub read.
	recs, err := f.log.ReadAfter(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	perStream := map[string]int{}
	for _, r := range recs {
		perStream[r.Stream]++
	}
	want := 0
	for _, n := range perStream {
		want += n / 2
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return countSnapshots(t, hubLog) == want },
		"%d snapshots saved, want %d", countSnapshots(t, hubLog), want)

	withSnapshots, readWith := restartedHub(t, f, hubLog)
	for pos, want := range then {
		if diff := cmp.Diff(string(want), string(listAt(t, withSnapshots, pos))); diff != "" {
			t.Errorf("the fleet at %d, read then and from snapshots (-then +now):\n%s", pos, diff)
		}
	}
	snaps, err := hubLog.ReadSnapshots(t.Context(), "", 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hubLog.DropSnapshots(t.Context()); err != nil {
		t.Fatal(err)
	}
	withoutSnapshots, readWithout := restartedHub(t, f, hubLog)
	for pos, want := range then {
		if diff := cmp.Diff(string(want), string(listAt(t, withoutSnapshots, pos))); diff != "" {
			t.Errorf("the fleet at %d, read then and with no snapshot (-then +now):\n%s", pos, diff)
		}
	}
	if with, without := readWith(), readWithout(); with >= without {
		t.Errorf("folding from snapshots read %v events, from the streams' first events %v: want fewer", with, without)
	}

	// The snapshots back, then the retention policy thins the heartbeats
	// and drops the snapshots that makes untrue.
	if err := hubLog.SaveSnapshots(t.Context(), snaps); err != nil {
		t.Fatal(err)
	}
	c, err := projections.NewCompactor(f.w, projections.CompactionConfig{Retention: 5 * time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := c.Compact(t.Context())
	if err != nil || stats.Deleted == 0 {
		t.Fatalf("the retention deleted %d heartbeats: %v", stats.Deleted, err)
	}
	thinnedWith, _ := restartedHub(t, f, hubLog)
	left := countSnapshots(t, hubLog)
	if left == 0 || left >= len(snaps) {
		t.Errorf("%d of %d snapshots left after the retention thinned the log: want some dropped and some kept", left, len(snaps))
	}
	if _, err := hubLog.DropSnapshots(t.Context()); err != nil {
		t.Fatal(err)
	}
	thinnedWithout, _ := restartedHub(t, f, hubLog)
	for pos, want := range then {
		got := listAt(t, thinnedWith, pos)
		if diff := cmp.Diff(string(listAt(t, thinnedWithout, pos)), string(got)); diff != "" {
			t.Errorf("the thinned fleet at %d with %d snapshots left and with none (-none +snapshots):\n%s", pos, left, diff)
		}
		if pos >= stats.Through && string(got) != string(want) {
			t.Errorf("the fleet at %d, at or after the compaction point %d, read then and now:\n%s\n%s", pos, stats.Through, want, got)
		}
	}
}

// listAt is the JSON of every node the hub lists at pos, as of the past.
func listAt(t *testing.T, h *watch.Hub, pos int64) []byte {
	t.Helper()
	res, err := h.List(t.Context(), watch.ListRequest{Resource: "nodes", At: pos, Past: true})
	if err != nil {
		t.Fatalf("list at %d: %v", pos, err)
	}
	var out []json.RawMessage
	for _, o := range res.Items {
		data, err := o.JSON()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func countSnapshots(t *testing.T, l events.Log) int {
	t.Helper()
	snaps, err := l.ReadSnapshots(t.Context(), "", 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return len(snaps)
}

// restartedHub is a hub started now over l, as after a restart: its only
// base is the views' head. It takes no snapshots. read says how many
// events its lists folded from the log.
func restartedHub(t *testing.T, f *fixture, l events.Log) (*watch.Hub, func() float64) {
	t.Helper()
	c := watch.Config{History: time.Minute, SnapshotEvery: -1, PollInterval: time.Millisecond}
	reg := prometheus.NewRegistry()
	h, err := watch.NewHub(l, c, f.clk, nil, watch.NewMetrics(reg))
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Register(h, nodeKind(projections.NewNodeView(l))); err != nil {
		t.Fatal(err)
	}
	if err := h.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	return h, func() float64 {
		n, err := testutil.GatherAndCount(reg, "herd_watch_history_events_read_total")
		if err != nil || n != 1 {
			t.Fatalf("herd_watch_history_events_read_total: %d series, %v", n, err)
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "herd_watch_history_events_read_total" {
				return mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		return 0
	}
}

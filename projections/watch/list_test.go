package watch_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/projections/watch"
)

// page reads every page of a listing, pinned to the first page's
// resourceVersion, running between pages whatever the test wants to
// happen meanwhile.
func listAll(t *testing.T, f *fixture, limit int, match func(*watch.Object) bool, between func()) ([]domain.Node, int64) {
	t.Helper()
	var (
		out   []domain.Node
		at    int64
		after string
	)
	for {
		res, err := f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes", At: at, After: after, Limit: limit, Match: match})
		if err != nil {
			t.Fatal(err)
		}
		if at == 0 {
			at = res.ResourceVersion
		} else if res.ResourceVersion != at {
			t.Fatalf("a later page is as of %d, the listing of %d", res.ResourceVersion, at)
		}
		if limit > 0 && len(res.Items) > limit {
			t.Fatalf("%d items for a limit of %d", len(res.Items), limit)
		}
		for _, o := range res.Items {
			data, err := o.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var n domain.Node
			if err := json.Unmarshal(data, &n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		if !res.More {
			return out, at
		}
		after = res.Items[len(res.Items)-1].Meta.Key
		if between != nil {
			between()
		}
	}
}

// TestPagesOfAListingShowOneMomentOfTheLog lists nodes page by page while
// others are deleted, created, relabelled and registered again between
// pages: every page shows the fleet as it was when the first was read.
func TestPagesOfAListingShowOneMomentOfTheLog(t *testing.T) {
	f := newFixture(t, watch.Config{})
	names := []string{"a", "b", "c", "d", "e", "f", "g"}
	for _, name := range names {
		f.do(t, name, register(name, map[string]string{"zone": "a"}))
	}
	f.do(t, "c", domain.DeleteNode{})
	f.do(t, "g", heartbeat(500))

	inZoneA := func(o *watch.Object) bool { return o.Meta.Labels["zone"] == "a" }
	for _, tt := range []struct {
		name  string
		limit int
		match func(*watch.Object) bool
	}{
		{"one at a time", 1, nil},
		{"two at a time", 2, nil},
		{"more than there are", 100, nil},
		{"with a selector", 2, inZoneA},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, wantAt := listAll(t, f, 0, tt.match, nil)
			if len(want) != 6 {
				t.Fatalf("the whole list has %d nodes, want 6", len(want))
			}
			changes := []func(){
				func() { f.do(t, "f", domain.DeleteNode{}) },
				func() { f.do(t, "c", register("c", map[string]string{"zone": "a"})) },
				func() { f.do(t, "e", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}}) },
				func() { f.do(t, "h", register("h", map[string]string{"zone": "a"})) },
				func() { f.do(t, "g", heartbeat(10)) },
				func() { f.do(t, "ee", register("ee", map[string]string{"zone": "a"})) },
			}
			i := 0
			got, at := listAll(t, f, tt.limit, tt.match, func() {
				if i < len(changes) {
					changes[i]()
					i++
				}
			})
			if at != wantAt {
				t.Errorf("listing as of %d, want %d", at, wantAt)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pages (-as of the first page +got):\n%s", diff)
			}
			// Undo, so that the next case starts from the same fleet.
			undo := []func(){
				func() { f.do(t, "f", register("f", map[string]string{"zone": "a"})) },
				func() { f.do(t, "c", domain.DeleteNode{}) },
				func() { f.do(t, "e", domain.SetNodeLabels{Labels: map[string]string{"zone": "a"}}) },
				func() { f.do(t, "h", domain.DeleteNode{}) },
				func() {},
				func() { f.do(t, "ee", domain.DeleteNode{}) },
			}
			for _, u := range undo[:i] {
				u()
			}
		})
	}
}

// TestAListSeesEveryWriteBeforeItFromMemory: a list right after a write
// shows it, with a resourceVersion at or past the write's, answered from
// the hub's memory and not from the view; on PostgreSQL the write goes
// through another replica, whose commit the hub's replica only hears of.
func TestAListSeesEveryWriteBeforeItFromMemory(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		testListSeesWrites(t, newFixture(t, watch.Config{}))
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		f, _ := newReplicasFixture(t, watch.Config{})
		testListSeesWrites(t, f)
	})
}

func testListSeesWrites(t *testing.T, f *fixture) {
	f.do(t, "seed", register("seed", nil))
	f.start(t)
	started := f.rowsRead.Load()
	for i := range 20 {
		name := fmt.Sprintf("web-%02d", i)
		n := f.do(t, name, register(name, map[string]string{"n": strconv.Itoa(i)}))
		res, err := f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes"})
		if err != nil {
			t.Fatal(err)
		}
		if res.ResourceVersion < n.ResourceVersion {
			t.Fatalf("list after writing %s at %d is as of %d", name, n.ResourceVersion, res.ResourceVersion)
		}
		if len(res.Items) != i+2 || res.Items[0].Meta.Key != "seed" || res.Items[i+1].Meta.Key != name {
			t.Fatalf("list after writing %s: %d items, want %d in key order, from seed to it", name, len(res.Items), i+2)
		}
	}
	if n := f.rowsRead.Load() - started; n != 0 {
		t.Errorf("the hub read the view %d times for 20 lists: want every list from memory", n)
	}
}

// TestAHubBehindTheLogListsFromTheView: when the hub has not read as far
// as the log's head within WaitForPosition (a commit it was not told of,
// and a long poll), the view answers, and the list still shows the write.
func TestAHubBehindTheLogListsFromTheView(t *testing.T) {
	f := newFixture(t, watch.Config{PollInterval: time.Hour, WaitForPosition: 50 * time.Millisecond})
	f.do(t, "web-01", register("web-01", nil))
	f.start(t)

	other, err := events.Open(t.Context(), events.Config{Path: dbPath(t, f)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	n, err := projections.NewWriter(other.Log(), f.clk, nil).NodeCommands().Execute(t.Context(), domain.Key{Name: "web-02"}, register("web-02", nil))
	if err != nil {
		t.Fatal(err)
	}
	before := f.rowsRead.Load()
	res, err := f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes"})
	if err != nil {
		t.Fatal(err)
	}
	if f.hub.Position() >= n.ResourceVersion {
		t.Fatalf("the hub read the other writer's commit at %d: the test needs it behind", n.ResourceVersion)
	}
	if res.ResourceVersion < n.ResourceVersion || len(res.Items) != 2 || res.Items[1].Meta.Key != "web-02" {
		t.Errorf("list as of %d with %d items, want web-01 and web-02 as of %d or later", res.ResourceVersion, len(res.Items), n.ResourceVersion)
	}
	if f.rowsRead.Load() == before {
		t.Error("the view was not read: the list cannot have shown a write the hub has not read")
	}
}

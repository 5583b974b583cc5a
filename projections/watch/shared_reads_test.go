package watch_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/projections/command"
	"herd/projections/watch"
)

// TestAWatchSeesEveryCommitOnceFromMemoryAcrossTheWindowAndARestart: with
// the log's reads shared, as herd serve has them (on SQLite each commit
// hands its records to the hub from memory), a watch sees every write
// once, in order, as the log holds it: small commits, one commit of more
// records than the window of recent records keeps (the hub reads those
// back from the database), and, after herd restarts, a watch resumed
// where it stopped sees exactly what was written since, before the hub
// started and after.
func TestAWatchSeesEveryCommitOnceFromMemoryAcrossTheWindowAndARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "herd.db")
	open := func() *fixture {
		t.Helper()
		store, err := events.Open(t.Context(), events.Config{Path: path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		events.ShareReads(store.Log())
		f := newFixtureOn(t, watch.Config{History: time.Hour}, store.Log(), store.Log())
		f.store = store
		return f
	}
	f := open()
	f.start(t)
	w, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", Initial: true})

	f.do(t, "n1", register("n1", nil))
	f.do(t, "n2", register("n2", nil))
	f.clk.Step(time.Second)
	f.do(t, "n1", heartbeat(900))

	// One commit of 1,200 writes of 4 events: more than the window holds.
	tx, err := f.log.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1200 {
		name := fmt.Sprintf("big-%04d", i)
		at := f.clk.Now()
		evs, err := command.EncodeEvents([]domain.Event{domain.NodeRegistered{Registration: register(name, nil).Registration, At: at},
			domain.HeartbeatRecorded{At: at}, domain.HeartbeatRecorded{At: at}, domain.HeartbeatRecorded{At: at}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Append(t.Context(), domain.NodeStream(name), 0, events.Metadata{Actor: "test"}, at, evs...); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	f.clk.Step(time.Second)
	f.do(t, "n2", heartbeat(800))

	want := expectedFromLog(t, f)
	got := receive(t, w, len(want))
	if diff := cmp.Diff(want, strs(got)); diff != "" {
		t.Fatalf("before the restart (-the log +watched):\n%s", diff)
	}
	expectNothing(t, f, w)
	if handed := events.CommitsHandedOn(f.log); handed < 4800 {
		t.Errorf("%d records handed on by commits, want every one committed (4,800 and more)", handed)
	}
	last := got[len(got)-1].Node.ResourceVersion
	f.hub.Stop()
	if err := f.store.Close(); err != nil {
		t.Fatal(err)
	}

	f = open()
	f.clk.Step(2 * time.Second)
	f.do(t, "n3", register("n3", nil)) // while no hub follows
	f.start(t)
	w, _ = mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: last})
	f.do(t, "n1", heartbeat(700))
	f.do(t, "n3", heartbeat(600))
	want = expectedFromLog(t, f)[len(got):]
	if diff := cmp.Diff(want, strs(receive(t, w, len(want)))); diff != "" {
		t.Fatalf("resumed after the restart (-the log +watched):\n%s", diff)
	}
	expectNothing(t, f, w)
}

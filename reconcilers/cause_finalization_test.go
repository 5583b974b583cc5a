package reconcilers

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
)

// TestFinalizationCauseFindsAGonePodByItsUID: the finalization named is
// the one of a pod of the prefix whose UID is asked for, however many
// finalizations of others came after it (read back page by page), and
// of the incarnation of that UID when a name was used twice.
func TestFinalizationCauseFindsAGonePodByItsUID(t *testing.T) {
	checkFinalizationCause(t, openSQLiteLog(t))
}

// openSQLiteLog is a log in a SQLite file of the test's own, closed
// after it.
func openSQLiteLog(t *testing.T) events.Log {
	t.Helper()
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	return store.Log()
}

// TestFinalizationCauseFindsAGonePodByItsUIDOnPostgres is the same on
// PostgreSQL.
func TestFinalizationCauseFindsAGonePodByItsUIDOnPostgres(t *testing.T) {
	checkFinalizationCause(t, eventstest.OpenPostgres(t, pgtest.URL(t)))
}

func checkFinalizationCause(t *testing.T, log events.Log) {
	ctx := t.Context()
	if err := projections.Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	pods := projections.NewWriter(log, clk, nil).PodCommands()
	// gone creates and deletes a pod never scheduled, which goes at
	// once, and returns its finalization.
	gone := func(name, uid string) events.Record {
		t.Helper()
		clk.Step(time.Second)
		key := domain.Key{Namespace: "default", Name: name}
		create := domain.CreatePod{Namespace: "default", Name: name, UID: uid, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "app", Image: "busybox"}}}}
		if _, err := pods.Execute(ctx, key, create); err != nil {
			t.Fatal(err)
		}
		if _, err := pods.Execute(ctx, key, domain.DeletePod{}); err != nil {
			t.Fatal(err)
		}
		recs, err := log.Query(ctx, events.Filter{Stream: domain.PodStream("default", name), Types: []string{domain.PodFinalized{}.EventType()}, Newest: true, Limit: 1})
		if err != nil || len(recs) != 1 {
			t.Fatalf("finalization of %s: %v, %v", name, recs, err)
		}
		return recs[0]
	}
	reusedFirst := gone("pi-reused", "uid-reused-1")
	wanted := gone("pi-wanted", "uid-wanted")
	var seventh events.Record
	for i := range 3 * finalizationPage {
		if rec := gone(fmt.Sprintf("pi-%d", i), fmt.Sprintf("uid-%d", i)); i == 7 {
			seventh = rec
		}
	}
	reusedSecond := gone("pi-reused", "uid-reused-2")
	gone("pix-1", "uid-other") // another owner's prefix, and the newest

	lctx := withCauseLog(ctx, log)
	for _, tc := range []struct {
		name string
		uids []string
		want events.Record
	}{
		{"one far back", []string{"uid-wanted"}, wanted},
		{"the newest of several", []string{"uid-wanted", "uid-7"}, seventh},
		{"a name's first pod", []string{"uid-reused-1"}, reusedFirst},
		{"a name's second pod", []string{"uid-reused-2"}, reusedSecond},
		{"another prefix's pod", []string{"uid-other"}, events.Record{}},
		{"a UID never seen", []string{"uid-nobody"}, events.Record{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := FinalizationCause(lctx, "default", "pi-", tc.uids)
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.want.ID != "") || got.ID != tc.want.ID {
				t.Errorf("FinalizationCause = %s %s at %d (%v), want %s %s at %d", got.Type, got.Stream, got.Position, ok,
					tc.want.Type, tc.want.Stream, tc.want.Position)
			}
		})
	}
	if _, ok, err := FinalizationCause(ctx, "default", "pi-", []string{"uid-wanted"}); ok || err != nil {
		t.Errorf("without a log: found %v, %v; want nothing", ok, err)
	}
}

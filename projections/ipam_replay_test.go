package projections

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

func TestIPAMLogOfAnOlderHerdReplaysToTheSameAllocationsSQLite(t *testing.T) {
	runIPAMOlderLog(t, sqliteIPAM(t))
}

func TestIPAMLogOfAnOlderHerdReplaysToTheSameAllocationsPostgres(t *testing.T) {
	runIPAMOlderLog(t, postgresIPAM(t))
}

// runIPAMOlderLog replays a pool's events as herd stored them before it
// kept the pool's free addresses (the same bytes, appended to the log
// without a view of them), and finds the same allocations, the same pool
// usage, and the lowest free addresses handed out next. A pool row as an
// older herd left it (no free addresses) is decided on correctly before
// the start that fills it, and filled by that start to what a rebuild
// gives; a row an older herd rewrote after that, on a database the two
// share during an upgrade, is decided on as it now stands.
func runIPAMOlderLog(t *testing.T, e ipamEngine) {
	ctx := t.Context()
	log := e.open(t)
	const pool = "10.88.0.0/24"
	alloc := func(uid, addr string) events.NewEvent {
		return events.NewEvent{Type: "IPAllocated", SchemaVersion: 1, Payload: fmt.Appendf(nil,
			`{"pool":"10.88.0.0/24","address":%q,"podUID":%q,"namespace":"default","name":"pod-%s","at":"2026-03-01T12:00:00Z"}`, addr, uid, uid)}
	}
	release := func(uid, addr string) events.NewEvent {
		return events.NewEvent{Type: "IPReleased", SchemaVersion: 1, Payload: fmt.Appendf(nil,
			`{"pool":"10.88.0.0/24","address":%q,"podUID":%q,"namespace":"default","name":"pod-%s","reason":"PodFinalized","at":"2026-03-01T12:00:01Z"}`, addr, uid, uid)}
	}
	logged := []events.NewEvent{
		alloc("u1", "10.88.0.2"), alloc("u2", "10.88.0.3"), alloc("u3", "10.88.0.4"), alloc("u4", "10.88.0.5"),
		alloc("u5", "10.88.0.6"), alloc("u6", "10.88.0.7"),
		release("u3", "10.88.0.4"), release("u5", "10.88.0.6"),
		alloc("u7", "10.88.0.4"),
		// Written by hand, past a run of free addresses.
		alloc("u8", "10.88.0.20"),
		release("u6", "10.88.0.7"),
	}
	ltx, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ltx.Append(ctx, domain.IPPoolStream(pool), 0, events.Metadata{Source: "test"}, t0, logged...); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(ctx, log, RebuildOptions{BatchSize: 4}); err != nil {
		t.Fatal(err)
	}
	view := NewIPAMView(log)
	byPod := func() map[string]string {
		t.Helper()
		all, err := view.Allocations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, a := range all {
			out[a.PodUID] = a.Address
		}
		return out
	}
	want := map[string]string{"u1": "10.88.0.2", "u2": "10.88.0.3", "u7": "10.88.0.4", "u4": "10.88.0.5", "u8": "10.88.0.20"}
	if diff := cmp.Diff(want, byPod()); diff != "" {
		t.Errorf("allocations replayed (-want +got):\n%s", diff)
	}
	if usage, err := view.Pools(ctx); err != nil || len(usage) != 1 || usage[0].InUse != 5 {
		t.Errorf("pool usage %+v, %v, want 5 in use", usage, err)
	}
	e.verify(t, log)

	w := NewWriter(log, clocktesting.NewFakeClock(t0), nil)
	next := func(uid string) string {
		t.Helper()
		p, err := w.IPPoolCommands().Execute(ctx, domain.Key{Name: pool}, allocCmd(uid))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := p.HolderOf(uid)
		return a.Address
	}
	if got := next("n1"); got != "10.88.0.6" {
		t.Errorf("first allocation after the replay: %s, want the lowest free, 10.88.0.6", got)
	}

	// The pool's row as an older herd left it: no free addresses.
	db, engine := events.SQLDB(log)
	bind := engine.Dialect().Bind
	forget := func() {
		t.Helper()
		if _, err := db.ExecContext(ctx, `UPDATE ip_pools SET free = NULL`); err != nil {
			t.Fatal(err)
		}
	}
	forget()
	if got := next("n2"); got != "10.88.0.7" {
		t.Errorf("allocation on a row an older herd wrote: %s, want the lowest free, 10.88.0.7", got)
	}
	if got := next("n3"); got != "10.88.0.8" {
		t.Errorf("the next: %s, want 10.88.0.8", got)
	}
	e.verify(t, log)
	forget()
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	var free sql.NullString
	if err := db.QueryRowContext(ctx, bind(`SELECT free FROM ip_pools WHERE pool = ?`), pool).Scan(&free); err != nil || !free.Valid {
		t.Fatalf("free addresses after a start: %v, %v, want them filled", free, err)
	}
	e.verify(t, log)
	if got := next("n4"); got != "10.88.0.9" {
		t.Errorf("allocation after the start filled the row: %s, want 10.88.0.9", got)
	}

	// A herd from before, sharing the database during an upgrade, hands
	// out the next address and rewrites the pool's row as it did: its
	// version and count, not its free addresses.
	var version int64
	if err := db.QueryRowContext(ctx, bind(`SELECT version FROM ip_pools WHERE pool = ?`), pool).Scan(&version); err != nil {
		t.Fatal(err)
	}
	ltx, err = log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ltx.Append(ctx, domain.IPPoolStream(pool), version, events.Metadata{Source: "test"}, t0, alloc("old", "10.88.0.10"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ltx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := addressRows.Allocate(ctx, viewstore.NewDB(log), viewstore.Allocation{Pool: pool, Address: "10.88.0.10", PodUID: "old",
		Namespace: "default", Name: "pod-old", At: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Position: recs[0].Position}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, bind(`UPDATE ip_pools SET version = ?, resource_version = ?, in_use = in_use + 1 WHERE pool = ?`),
		version+1, recs[0].Position, pool); err != nil {
		t.Fatal(err)
	}
	if got := next("n5"); got != "10.88.0.11" {
		t.Errorf("allocation after an older herd rewrote the pool's row: %s, want 10.88.0.11", got)
	}
	e.verify(t, log)
}

// TestIPPoolFreeColumn: a pool's free addresses read back as written,
// and a value no herd wrote is refused, naming what is wrong, rather than
// deciding on it.
func TestIPPoolFreeColumn(t *testing.T) {
	for _, p := range []domain.IPPool{
		{Next: 0},
		{Version: 9, Next: 7},
		{Version: 1 << 40, Next: 120, Holes: []domain.IPRange{{From: 0, To: 1}, {From: 3, To: 5}, {From: 9, To: 100}}},
	} {
		s := encodeIPPoolFree(p)
		var got domain.IPPool
		v, err := decodeIPPoolFree(s, &got)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		got.Version = v
		if diff := cmp.Diff(p, got); diff != "" {
			t.Errorf("%q read back (-written +read):\n%s", s, diff)
		}
	}
	if s := encodeIPPoolFree(domain.IPPool{Version: 57, Next: 120, Holes: []domain.IPRange{{From: 3, To: 5}, {From: 9, To: 10}}}); s != "57@120;3-5,9-10" {
		t.Errorf("encoded %q, want 57@120;3-5,9-10", s)
	}
	for _, bad := range []string{"", "x", "5", "@5", "x@5", "-1@5", "1@-1", "1@5;", "1@5;3", "1@5;3-2", "1@5;1-2,2-3", "1@5;2-3,0-1", "1@5;1-5", "1@5;1-9"} {
		var p domain.IPPool
		if _, err := decodeIPPoolFree(bad, &p); err == nil {
			t.Errorf("%q read as %+v, want it refused", bad, p)
		}
	}
}

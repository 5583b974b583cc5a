package viewstore_test

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/projections/viewstore"
)

// TestAddressesContract: the IP address views' tables behave the same on
// a real SQLite file and a real PostgreSQL, through each engine's own
// implementation and through NewAddresses: a pool's row reads back as
// written, inside the writing transaction and after its commit, and is
// replaced by the next write; a row that keeps no free addresses is
// listed as unfilled until filled at its version, and a fill at another
// version or of a filled row changes nothing; allocations read back as
// written (the time in UTC, to the nanosecond) by pool, by pod in a pool
// and in any pool, by name and all together; a second holder of an
// address is refused and a rolled back allocation leaves nothing; a
// released address is gone, and releasing one not held is no error.
func TestAddressesContract(t *testing.T) {
	onEachEngineApart(t, viewstore.NewSQLiteAddresses, viewstore.NewPostgresAddresses, viewstore.NewAddresses, addressesContract)
}

func addressesContract(t *testing.T, e engine, prefix string, s viewstore.Addresses) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	p1, p2 := prefix+"10.88.0.0/16", prefix+"10.89.0.0/24"
	ns := prefix + "default"

	if _, err := s.Pool(ctx, views, p1); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Pool of a pool never written: %v, want ErrNoRow", err)
	}

	// A pool's row round trip, inside the transaction and after it.
	first := viewstore.Pool{CIDR: p1, Version: 3, ResourceVersion: 30, InUse: 2, Free: "3@2;0-1"}
	second := viewstore.Pool{CIDR: p1, Version: 4, ResourceVersion: 41, InUse: 3, Free: "4@3"}
	old := viewstore.Pool{CIDR: p2, Version: 7, ResourceVersion: 70, InUse: 1}
	write(t, e.log, func(x *events.ViewTx) {
		for _, p := range []viewstore.Pool{first, old} {
			if err := s.PutPool(ctx, x, p); err != nil {
				t.Fatalf("PutPool %s: %v", p.CIDR, err)
			}
		}
		if got, err := s.Pool(ctx, x, p1); err != nil || got != first {
			t.Errorf("Pool inside the writing transaction: %+v, %v, want %+v", got, err, first)
		}
		if err := s.PutPool(ctx, x, second); err != nil {
			t.Fatalf("PutPool over a row: %v", err)
		}
	})
	for _, want := range []viewstore.Pool{second, old} {
		if got, err := s.Pool(ctx, views, want.CIDR); err != nil || got != want {
			t.Errorf("Pool(%s) after the commit: %+v, %v, want %+v", want.CIDR, got, err, want)
		}
	}
	ours := func(ps []viewstore.Pool) []viewstore.Pool {
		out := []viewstore.Pool{}
		for _, p := range ps {
			if strings.HasPrefix(p.CIDR, prefix) {
				out = append(out, p)
			}
		}
		return out
	}
	pools, err := s.Pools(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	usage := func(p viewstore.Pool) viewstore.Pool { p.Free = ""; return p }
	if diff := gocmp.Diff([]viewstore.Pool{usage(second), usage(old)}, ours(pools)); diff != "" {
		t.Errorf("Pools, in CIDR order, without free addresses (-want +got):\n%s", diff)
	}

	// A row that keeps no free addresses, as an older herd wrote it.
	unfilled := func() []viewstore.Pool {
		t.Helper()
		ps, err := s.Unfilled(ctx, views)
		if err != nil {
			t.Fatal(err)
		}
		return ours(ps)
	}
	if diff := gocmp.Diff([]viewstore.Pool{{CIDR: p2, Version: 7}}, unfilled()); diff != "" {
		t.Errorf("Unfilled (-want +got):\n%s", diff)
	}
	filled := viewstore.Pool{CIDR: p2, Version: 7, ResourceVersion: 70, InUse: 1, Free: "7@1"}
	write(t, e.log, func(x *events.ViewTx) {
		// A fill at another version: another writer changed the pool.
		if err := s.Fill(ctx, x, viewstore.Pool{CIDR: p2, Version: 6, InUse: 9, Free: "6@9"}); err != nil {
			t.Fatalf("Fill at a stale version: %v", err)
		}
		if err := s.Fill(ctx, x, viewstore.Pool{CIDR: p2, Version: 7, InUse: 1, Free: ""}); err == nil {
			t.Error("Fill with no free addresses: no error")
		}
		if err := s.Fill(ctx, x, viewstore.Pool{CIDR: p2, Version: 7, InUse: 1, Free: "7@1"}); err != nil {
			t.Fatalf("Fill: %v", err)
		}
		// A fill of a row filled already.
		if err := s.Fill(ctx, x, viewstore.Pool{CIDR: p2, Version: 7, InUse: 5, Free: "7@5"}); err != nil {
			t.Fatalf("Fill of a filled row: %v", err)
		}
		// A fill of a pool whose row keeps its free addresses.
		if err := s.Fill(ctx, x, viewstore.Pool{CIDR: p1, Version: 4, ResourceVersion: 1, InUse: 8, Free: "4@8"}); err != nil {
			t.Fatalf("Fill of a row that keeps its free addresses: %v", err)
		}
	})
	if got, err := s.Pool(ctx, views, p2); err != nil || got != filled {
		t.Errorf("Pool after its fill: %+v, %v, want %+v", got, err, filled)
	}
	if got, err := s.Pool(ctx, views, p1); err != nil || got != second {
		t.Errorf("a filled pool after a fill: %+v, %v, want it as written, %+v", got, err, second)
	}
	if got := unfilled(); len(got) != 0 {
		t.Errorf("Unfilled after the fill: %+v, want none", got)
	}

	// Allocations.
	at := time.Date(2026, 11, 29, 16, 30, 0, 123456789, time.FixedZone("CET", 3600))
	alloc := func(p, addr, uid, name string, pos int64) viewstore.Allocation {
		return viewstore.Allocation{Pool: p, Address: addr, PodUID: prefix + uid, Namespace: ns, Name: name,
			At: at.Add(time.Duration(pos) * time.Second), Position: pos}
	}
	allocs := []viewstore.Allocation{
		alloc(p1, "10.88.0.2", "u1", "web", 1),
		alloc(p1, "10.88.0.10", "u2", "db", 2),
		alloc(p1, "10.88.0.3", "u3", "web", 3), // the name reused before u1's address went back
		alloc(p2, "10.89.0.2", "u1", "web", 4), // one pod in two pools
		alloc(p2, "10.89.0.3", "u4", "cache", 5),
	}
	allocs[4].Namespace = prefix + "other"
	// As they come back: the time in UTC.
	read := func(a viewstore.Allocation) viewstore.Allocation { a.At = a.At.UTC(); return a }
	want := func(idx ...int) []viewstore.Allocation {
		out := []viewstore.Allocation{}
		for _, i := range idx {
			out = append(out, read(allocs[i]))
		}
		return out
	}
	got := func(what string, as []viewstore.Allocation, err error, want []viewstore.Allocation) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		mine := []viewstore.Allocation{}
		for _, a := range as {
			if strings.HasPrefix(a.Pool, prefix) {
				mine = append(mine, a)
			}
		}
		slices.SortFunc(mine, func(x, y viewstore.Allocation) int {
			return cmp.Or(cmp.Compare(x.Pool, y.Pool), cmp.Compare(x.Position, y.Position))
		})
		if diff := gocmp.Diff(want, mine); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	write(t, e.log, func(x *events.ViewTx) {
		for _, a := range allocs {
			if err := s.Allocate(ctx, x, a); err != nil {
				t.Fatalf("Allocate %s %s: %v", a.Pool, a.Address, err)
			}
		}
		as, err := s.OfPodIn(ctx, x, p1, prefix+"u1")
		got("OfPodIn inside the writing transaction", as, err, want(0))
	})
	as, err := s.InPool(ctx, views, p1)
	got("InPool(p1)", as, err, want(0, 1, 2))
	as, err = s.InPool(ctx, views, prefix+"10.90.0.0/24")
	got("InPool of a pool with none", as, err, want())
	as, err = s.OfPodIn(ctx, views, p2, prefix+"u1")
	got("OfPodIn(p2, u1)", as, err, want(3))
	as, err = s.OfPodIn(ctx, views, p2, prefix+"u2")
	got("OfPodIn of a pod holding none there", as, err, want())
	as, err = s.OfPod(ctx, views, prefix+"u1")
	got("OfPod(u1)", as, err, want(0, 3))
	as, err = s.Named(ctx, views, ns, "web")
	got("Named(web)", as, err, want(0, 2, 3))
	as, err = s.Named(ctx, views, ns, "cache")
	got("Named in another namespace", as, err, want())
	as, err = s.All(ctx, views)
	got("All", as, err, want(0, 1, 2, 3, 4))

	// A second holder of an address is refused, and the first stays.
	ltx, err := e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	impostor := alloc(p1, "10.88.0.2", "u9", "impostor", 9)
	if err := s.Allocate(ctx, events.ViewsIn(ltx), impostor); err == nil {
		t.Error("Allocate of an address held: no error")
	}
	_ = ltx.Rollback()
	// A rolled back allocation leaves nothing.
	ltx, err = e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Allocate(ctx, events.ViewsIn(ltx), alloc(p1, "10.88.0.99", "u9", "never", 9)); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Rollback(); err != nil {
		t.Fatal(err)
	}
	as, err = s.InPool(ctx, views, p1)
	got("InPool(p1) after a refused and a rolled back allocation", as, err, want(0, 1, 2))

	// Releases.
	write(t, e.log, func(x *events.ViewTx) {
		if err := s.Release(ctx, x, p1, "10.88.0.2"); err != nil {
			t.Fatalf("Release: %v", err)
		}
		if err := s.Release(ctx, x, p1, "10.88.0.200"); err != nil {
			t.Errorf("Release of an address not held: %v", err)
		}
		// The address of one pool, in the other: not held there.
		if err := s.Release(ctx, x, p2, "10.88.0.10"); err != nil {
			t.Errorf("Release of another pool's address: %v", err)
		}
	})
	as, err = s.All(ctx, views)
	got("All after the releases", as, err, want(1, 2, 3, 4))
	as, err = s.Named(ctx, views, ns, "web")
	got("Named(web) after u1's address in p1 went back", as, err, want(2, 3))
}

// TestAddressesRefuseAHandleOfNoEngine: NewAddresses does not guess the
// engine of a handle that does not tell it.
func TestAddressesRefuseAHandleOfNoEngine(t *testing.T) {
	e := openSQLite(t)
	db, _ := events.SQLDB(e.log)
	if _, err := viewstore.NewAddresses().All(t.Context(), db); err == nil {
		t.Error("All through a bare *sql.DB: no error")
	}
	if _, err := viewstore.NewAddresses().Pool(t.Context(), db, "10.88.0.0/16"); err == nil || errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Pool through a bare *sql.DB: %v, want a refusal", err)
	}
}

package viewstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/projections/viewstore"
)

// TestLeasesContract: the lease view's table behaves the same on a real
// SQLite file and a real PostgreSQL, through each engine's own
// implementation and through NewLeases: a row's renewal time comes back
// to the nanosecond, in UTC, and the zero time as the zero time; an
// upsert replaces the row and its renewal time; lists leave tombstones
// out and pages keep them, in bytewise key order ("a-z" before "a.b"
// whatever PostgreSQL's locale says), a limit of 0 meaning none, each at
// the log's head; a controller is refused and writes nothing.
func TestLeasesContract(t *testing.T) {
	onEachEngineApart(t, viewstore.NewSQLiteLeases, viewstore.NewPostgresLeases, viewstore.NewLeases, leaseContract)
}

func lease(ns, name string, deleted bool, v int64, renewedAt time.Time) viewstore.Lease {
	return viewstore.Lease{Row: obj(ns, name, deleted, v), RenewedAt: renewedAt}
}

// leaseContract runs the lease table's contract in namespaces that begin
// with prefix, so that runs on one database stay apart.
func leaseContract(t *testing.T, e engine, prefix string, leases viewstore.Leases) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	a, b := prefix+"a", prefix+"b"
	first := time.Date(2026, 11, 29, 13, 0, 0, 123456789, time.FixedZone("CET", 3600))
	second := first.Add(10 * time.Second)

	if _, _, err := leases.Get(ctx, views, viewstore.Key{Namespace: a, Name: "x"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Get of a row never written: %v, want ErrNoRow", err)
	}

	write(t, e.log, func(x *events.ViewTx) {
		for _, l := range []viewstore.Lease{
			lease(a, "a.b", false, 1, first), lease(a, "a-z", false, 1, time.Time{}),
			lease(b, "n1", false, 1, first), lease(a, "gone", false, 1, first),
		} {
			if err := leases.Upsert(ctx, x, l); err != nil {
				t.Fatalf("Upsert %v: %v", l.Key, err)
			}
		}
		data, renewed, err := leases.Get(ctx, x, viewstore.Key{Namespace: a, Name: "a.b"})
		if err != nil || string(data) != string(obj(a, "a.b", false, 1).Data) || !renewed.Equal(first) {
			t.Errorf("Get inside the writing transaction: %s renewed %v, %v; want the row renewed %v", data, renewed, err, first)
		}
	})
	head := write(t, e.log, func(x *events.ViewTx) {
		for _, l := range []viewstore.Lease{lease(a, "a.b", false, 2, second), lease(a, "gone", true, 2, time.Time{})} {
			if err := leases.Upsert(ctx, x, l); err != nil {
				t.Fatalf("Upsert %v: %v", l.Key, err)
			}
		}
	})
	for _, c := range []struct {
		name    string
		data    []byte
		renewed time.Time
	}{
		{"a.b", obj(a, "a.b", false, 2).Data, second.UTC()},
		{"a-z", obj(a, "a-z", false, 1).Data, time.Time{}},
		{"gone", obj(a, "gone", true, 2).Data, time.Time{}},
	} {
		data, renewed, err := leases.Get(ctx, views, viewstore.Key{Namespace: a, Name: c.name})
		if err != nil || string(data) != string(c.data) || renewed != c.renewed {
			t.Errorf("Get %s: %s renewed %#v, %v; want %s renewed %#v", c.name, data, renewed, err, c.data, c.renewed)
		}
	}
	// A transaction rolled back leaves no row.
	ltx, err := e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := leases.Upsert(ctx, events.ViewsIn(ltx), lease(a, "never", false, 1, first)); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := leases.Get(ctx, views, viewstore.Key{Namespace: a, Name: "never"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Get of a row rolled back: %v, want ErrNoRow", err)
	}

	// List: live rows of a namespace, or of all, at the head.
	list, h, err := leases.List(ctx, views, a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a + "/a-z", a + "/a.b"}, names(t, list)); diff != "" || h != head {
		t.Errorf("List(%s) at %d, head %d (-want +got):\n%s", a, h, head, diff)
	}
	all, h, err := leases.List(ctx, views, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a + "/a-z", a + "/a.b", b + "/n1"}, ours(t, prefix, all)); diff != "" || h != head {
		t.Errorf("List of every namespace at %d, head %d (-want +got):\n%s", h, head, diff)
	}

	// After: pages in bytewise key order, tombstones included, at the head.
	for _, p := range []struct {
		after viewstore.Key
		limit int
		want  []string
	}{
		{viewstore.Key{Namespace: a}, 0, []string{a + "/a-z", a + "/a.b", a + "/gone", b + "/n1"}},
		{viewstore.Key{Namespace: a}, 2, []string{a + "/a-z", a + "/a.b"}},
		{viewstore.Key{Namespace: a, Name: "a.b"}, 0, []string{a + "/gone", b + "/n1"}},
		{viewstore.Key{Namespace: b, Name: "n1"}, 1, []string{}},
	} {
		got, h, err := leases.After(ctx, views, p.after, p.limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(p.want, ours(t, prefix, got)); diff != "" || h != head {
			t.Errorf("After(%v, %d) at %d, head %d (-want +got):\n%s", p.after, p.limit, h, head, diff)
		}
	}

	// A lease keeps no controller: refused, and nothing written.
	write(t, e.log, func(x *events.ViewTx) {
		l := lease(a, "owned", false, 1, first)
		l.Controller = "Node/n1"
		if err := leases.Upsert(ctx, x, l); err == nil {
			t.Error("Upsert of a lease with a controller: no error")
		}
	})
	if _, _, err := leases.Get(ctx, views, viewstore.Key{Namespace: a, Name: "owned"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("a refused Upsert wrote its row: %v", err)
	}
	// The renewal alone: a live row's, and none of a tombstone (renewed
	// before it went) or of no row.
	write(t, e.log, func(x *events.ViewTx) {
		if err := leases.Upsert(ctx, x, lease(a, "went", true, 2, first)); err != nil {
			t.Fatal(err)
		}
	})
	for name, want := range map[string]time.Time{"a.b": second.UTC(), "a-z": {}, "went": {}, "none": {}} {
		if renewed, err := leases.RenewedAt(ctx, views, viewstore.Key{Namespace: a, Name: name}); err != nil || renewed != want {
			t.Errorf("RenewedAt %s: %#v, %v; want %#v", name, renewed, err, want)
		}
	}
}

// ours are the "ns/name" of the rows' data whose namespace begins with
// prefix, never nil.
func ours(t *testing.T, prefix string, data [][]byte) []string {
	t.Helper()
	out := []string{}
	for _, n := range names(t, data) {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// TestLeasesRefuseAHandleOfNoEngine: NewLeases does not guess the engine
// of a handle that does not tell it.
func TestLeasesRefuseAHandleOfNoEngine(t *testing.T) {
	e := openSQLite(t)
	db, _ := events.SQLDB(e.log)
	if _, _, err := viewstore.NewLeases().Get(t.Context(), db, viewstore.Key{Namespace: "a", Name: "b"}); err == nil || errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Get through a bare *sql.DB: %v, want a refusal", err)
	}
}

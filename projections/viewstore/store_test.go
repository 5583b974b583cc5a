package viewstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL's database/sql driver, "pgx"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
	"herd/projections/viewstore"
)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// engine is one engine's log with the views' tables beside it.
type engine struct {
	name string
	log  events.Log
	// engine is the engine's own implementation of the port.
	engine func(viewstore.Schema) viewstore.Store
}

func openSQLite(t *testing.T) engine {
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := projections.Migrate(t.Context(), store.Log()); err != nil {
		t.Fatal(err)
	}
	return engine{name: "sqlite", log: store.Log(), engine: viewstore.NewSQLite}
}

func openPostgres(t *testing.T) engine {
	log := eventstest.OpenPostgres(t, pgtest.URL(t))
	if err := projections.Migrate(t.Context(), log); err != nil {
		t.Fatal(err)
	}
	return engine{name: "postgres", log: log, engine: viewstore.NewPostgres}
}

// pool reads the views outside any transaction, binding statements in
// its engine's dialect, as the views' pool (viewstore.DB) does.
type pool struct {
	db *sql.DB
	d  events.Dialect
}

func (p pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return p.db.QueryContext(ctx, p.d.Bind(q), p.d.Args(args)...)
}

func (p pool) Dialect() events.Dialect { return p.d }

// write runs fn in one transaction of the log that also appends an
// event, so that the head moves as a command's would, and commits.
func write(t *testing.T, log events.Log, fn func(x *events.ViewTx)) int64 {
	t.Helper()
	ctx := t.Context()
	ltx, err := log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ltx.Rollback() }()
	recs, err := ltx.Append(ctx, fmt.Sprintf("contract-%d", time.Now().UnixNano()), 0, events.Metadata{}, time.Unix(0, 0).UTC(),
		events.NewEvent{Type: "ContractWritten", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	fn(events.ViewsIn(ltx))
	if err := ltx.Commit(); err != nil {
		t.Fatal(err)
	}
	return recs[len(recs)-1].Position
}

func obj(ns, name string, deleted bool, v int64) viewstore.Row {
	return viewstore.Row{
		Key: viewstore.Key{Namespace: ns, Name: name}, Deleted: deleted, Version: v, ResourceVersion: v * 10,
		Data: fmt.Appendf(nil, `{"ns":%q,"name":%q,"v":%d}`, ns, name, v),
	}
}

// names are the "ns/name" of rows' data written by obj.
func names(t *testing.T, data [][]byte) []string {
	t.Helper()
	out := []string{}
	for _, d := range data {
		var o struct{ NS, Name string }
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatalf("row data %s: %v", d, err)
		}
		out = append(out, o.NS+"/"+o.Name)
	}
	return out
}

// TestStoreContract: every method of the views' store port behaves the
// same on a real SQLite file and a real PostgreSQL, through each engine's
// own implementation and through New, which picks the implementation of
// the handle's engine.
func TestStoreContract(t *testing.T) {
	for _, open := range []func(*testing.T) engine{openSQLite, openPostgres} {
		e := open(t)
		t.Run(e.name, func(t *testing.T) {
			t.Run("engine", func(t *testing.T) { contract(t, e, "cm-", "rs-", e.engine) })
			t.Run("either", func(t *testing.T) { contract(t, e, "ns-", "rsns-", viewstore.New) })
		})
	}
}

// onEachEngine runs contract on a real SQLite file and a real
// PostgreSQL, through the engine's own implementation (sqlite, postgres;
// own true) and through the one that picks a handle's engine (either).
func onEachEngine[T any](t *testing.T, sqlite, postgres, either func() T, contract func(t *testing.T, e engine, own bool, s T)) {
	for _, open := range []func(*testing.T) engine{openSQLite, openPostgres} {
		e := open(t)
		mine := sqlite
		if e.name == "postgres" {
			mine = postgres
		}
		t.Run(e.name, func(t *testing.T) {
			t.Run("engine", func(t *testing.T) { contract(t, e, true, mine()) })
			t.Run("either", func(t *testing.T) { contract(t, e, false, either()) })
		})
	}
}

// onEachEngineApart is onEachEngine for a contract that keeps each run
// apart from the others on one database by the prefix of the names it
// writes: "own-" through the engine's own implementation, "any-" through
// the one that picks a handle's engine.
func onEachEngineApart[T any](t *testing.T, sqlite, postgres, either func() T, contract func(t *testing.T, e engine, prefix string, s T)) {
	onEachEngine(t, sqlite, postgres, either, func(t *testing.T, e engine, own bool, s T) {
		prefix := "any-"
		if own {
			prefix = "own-"
		}
		contract(t, e, prefix, s)
	})
}

// contract runs the port's contract on e's tables, in namespaces that
// begin with prefix (configmaps) and cprefix (replicasets, which keep
// controllers), so that runs on one database stay apart.
func contract(t *testing.T, e engine, prefix, cprefix string, newStore func(viewstore.Schema) viewstore.Store) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	plain := newStore(viewstore.Objects("configmaps", false))
	ctl := newStore(viewstore.Objects("replicasets", true))
	a, b := prefix+"a", prefix+"b"

	if _, err := plain.Get(ctx, views, viewstore.Key{Namespace: a, Name: "x"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Get of a row never written: %v, want ErrNoRow", err)
	}

	// Upsert and Get, inside the transaction and after it.
	write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.Row{obj(a, "a.b", false, 1), obj(a, "a-z", false, 1), obj(b, "n1", false, 1), obj(a, "gone", false, 1)} {
			if err := plain.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %v: %v", r.Key, err)
			}
		}
		got, err := plain.Get(ctx, x, viewstore.Key{Namespace: a, Name: "a.b"})
		if err != nil || string(got) != string(obj(a, "a.b", false, 1).Data) {
			t.Errorf("Get inside the writing transaction: %s, %v", got, err)
		}
	})
	head := write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.Row{obj(a, "a.b", false, 2), obj(a, "gone", true, 2)} {
			if err := plain.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %v: %v", r.Key, err)
			}
		}
	})
	if got, err := plain.Get(ctx, views, viewstore.Key{Namespace: a, Name: "a.b"}); err != nil || string(got) != string(obj(a, "a.b", false, 2).Data) {
		t.Errorf("Get after a second Upsert: %s, %v; want the second row", got, err)
	}
	if got, err := plain.Get(ctx, views, viewstore.Key{Namespace: a, Name: "gone"}); err != nil || string(got) != string(obj(a, "gone", true, 2).Data) {
		t.Errorf("Get of a tombstone: %s, %v; want its row", got, err)
	}

	// A transaction rolled back leaves no row.
	ltx, err := e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Upsert(ctx, events.ViewsIn(ltx), obj(a, "never", false, 1)); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Get(ctx, views, viewstore.Key{Namespace: a, Name: "never"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Get of a row rolled back: %v, want ErrNoRow", err)
	}

	// In: one namespace's live rows by name, no head.
	in, err := plain.In(ctx, views, a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a + "/a-z", a + "/a.b"}, names(t, in)); diff != "" {
		t.Errorf("In(%s) (-want +got):\n%s", a, diff)
	}

	// List: live rows of a namespace, or of all, at the head.
	list, h, err := plain.List(ctx, views, a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a + "/a-z", a + "/a.b"}, names(t, list)); diff != "" || h != head {
		t.Errorf("List(%s) at %d, head %d (-want +got):\n%s", a, h, head, diff)
	}
	all, h, err := plain.List(ctx, views, "")
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, n := range names(t, all) {
		if strings.HasPrefix(n, prefix) {
			ours = append(ours, n)
		}
	}
	if diff := cmp.Diff([]string{a + "/a-z", a + "/a.b", b + "/n1"}, ours); diff != "" || h != head {
		t.Errorf("List of every namespace at %d, head %d (-want +got):\n%s", h, head, diff)
	}
	if none, h, err := plain.List(ctx, views, prefix+"empty"); err != nil || len(none) != 0 || h != head {
		t.Errorf("List of an empty namespace: %d rows at %d, %v; want none at the head %d", len(none), h, err, head)
	}

	// After: pages in bytewise key order, tombstones included, at the head.
	pages := []struct {
		after viewstore.Key
		limit int
		want  []string
	}{
		{viewstore.Key{Namespace: a}, 0, []string{a + "/a-z", a + "/a.b", a + "/gone", b + "/n1"}},
		{viewstore.Key{Namespace: a}, 2, []string{a + "/a-z", a + "/a.b"}},
		{viewstore.Key{Namespace: a, Name: "a.b"}, 0, []string{a + "/gone", b + "/n1"}},
		{viewstore.Key{Namespace: b, Name: "n1"}, 1, []string{}},
	}
	for _, p := range pages {
		got, h, err := plain.After(ctx, views, p.after, p.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ours []string
		for _, n := range names(t, got) {
			if strings.HasPrefix(n, prefix) {
				ours = append(ours, n)
			}
		}
		if ours == nil {
			ours = []string{}
		}
		if diff := cmp.Diff(p.want, ours); diff != "" || h != head {
			t.Errorf("After(%v, %d) at %d, head %d (-want +got):\n%s", p.after, p.limit, h, head, diff)
		}
	}

	// Controlled: live rows of a namespace whose controller is one of
	// those asked for, "" for none.
	ca := cprefix + "a"
	head = write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []struct {
			viewstore.Row
			controller string
		}{
			{obj(ca, "web-1", false, 1), "Deployment/web"},
			{obj(ca, "web-2", false, 1), "Deployment/web"},
			{obj(ca, "web-old", true, 2), "Deployment/web"},
			{obj(ca, "api-1", false, 1), "Deployment/api"},
			{obj(ca, "lone", false, 1), ""},
			{obj(cprefix+"b", "web-1", false, 1), "Deployment/web"},
		} {
			r.Controller = r.controller
			if err := ctl.Upsert(ctx, x, r.Row); err != nil {
				t.Fatalf("Upsert %v: %v", r.Key, err)
			}
		}
	})
	for _, c := range []struct {
		controllers []string
		want        []string
	}{
		{[]string{"Deployment/web"}, []string{ca + "/web-1", ca + "/web-2"}},
		{[]string{"Deployment/web", ""}, []string{ca + "/lone", ca + "/web-1", ca + "/web-2"}},
		{[]string{"Deployment/none"}, []string{}},
	} {
		got, h, err := ctl.Controlled(ctx, views, ca, c.controllers)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, names(t, got)); diff != "" || h != head {
			t.Errorf("Controlled(%v) at %d, head %d (-want +got):\n%s", c.controllers, h, head, diff)
		}
	}
	if _, _, err := ctl.Controlled(ctx, views, ca, nil); err == nil {
		t.Error("Controlled with no controller to look for: no error")
	}
	if _, _, err := plain.Controlled(ctx, views, a, []string{"Deployment/web"}); err == nil {
		t.Error("Controlled on a table without controllers: no error")
	}
	write(t, e.log, func(x *events.ViewTx) {
		r := obj(a, "owned", false, 1)
		r.Controller = "Deployment/web"
		if err := plain.Upsert(ctx, x, r); err == nil {
			t.Error("Upsert of a controller into a table without controllers: no error")
		}
	})
	if _, err := plain.Get(ctx, views, viewstore.Key{Namespace: a, Name: "owned"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("a refused Upsert wrote its row: %v", err)
	}

	// Delete removes the row; a key with no row is no error.
	write(t, e.log, func(x *events.ViewTx) {
		for _, k := range []viewstore.Key{{Namespace: a, Name: "gone"}, {Namespace: a, Name: "never"}} {
			if err := plain.Delete(ctx, x, k); err != nil {
				t.Errorf("Delete %v: %v", k, err)
			}
		}
	})
	if _, err := plain.Get(ctx, views, viewstore.Key{Namespace: a, Name: "gone"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Get of a deleted row: %v, want ErrNoRow", err)
	}
	if in, err := plain.In(ctx, views, a); err != nil || len(in) != 2 {
		t.Errorf("Delete touched other rows: In(%s) = %d rows, %v", a, len(in), err)
	}
}

// TestStoreRefusesAHandleOfNoEngine: New does not guess the engine of a
// handle that does not tell it.
func TestStoreRefusesAHandleOfNoEngine(t *testing.T) {
	e := openSQLite(t)
	db, _ := events.SQLDB(e.log)
	s := viewstore.New(viewstore.Objects("configmaps", false))
	if _, err := s.Get(t.Context(), db, viewstore.Key{Namespace: "a", Name: "b"}); err == nil || errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Get through a bare *sql.DB: %v, want a refusal", err)
	}
}

// TestObjectsOnlyMakesStoresOfObjectTables: a schema that is not an
// object table's — the lease table's, which keeps renewed_at beside the
// data and has a store of its own (Leases) — is refused when its store
// is made.
func TestObjectsOnlyMakesStoresOfObjectTables(t *testing.T) {
	for name, open := range map[string]func(viewstore.Schema) viewstore.Store{"sqlite": viewstore.NewSQLite, "postgres": viewstore.NewPostgres} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: a store of the leases table's schema was made", name)
				}
			}()
			open(viewstore.Schema{Table: "leases", Keys: []string{"namespace", "name"}, Columns: []string{"deleted", "version", "resource_version", "renewed_at", "data"}})
		}()
	}
}

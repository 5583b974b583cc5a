package viewstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/projections/viewstore"
)

// TestNamespacesContract: the namespace view's table behaves the same on
// a real SQLite file and a real PostgreSQL, through each engine's own
// implementation and through NewNamespaces: a row reads back as written,
// tombstone or not, inside the writing transaction and after it, and not
// after a rollback; an upsert replaces it; the list leaves tombstones out
// and pages keep them, in bytewise name order at the log's head; the
// namespaces in use are those of a live pod or ConfigMap without a live
// row of their own.
func TestNamespacesContract(t *testing.T) {
	onEachEngineApart(t, viewstore.NewSQLiteNamespaces, viewstore.NewPostgresNamespaces, viewstore.NewNamespaces, namespaceContract)
}

// namespace is a namespace's row: its JSON names it and says v.
func namespace(name string, deleted bool, v int64) viewstore.NamespaceRow {
	return viewstore.NamespaceRow{Name: name, Deleted: deleted, Version: v, ResourceVersion: v * 10,
		Data: fmt.Appendf(nil, `{"name":%q,"v":%d}`, name, v)}
}

// namedWith are the names in rows' JSON that begin with prefix, never
// nil: other runs on one database write other names.
func namedWith(t *testing.T, prefix string, data [][]byte) []string {
	t.Helper()
	out := []string{}
	for _, d := range data {
		var o struct{ Name string }
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatalf("row data %s: %v", d, err)
		}
		if strings.HasPrefix(o.Name, prefix) {
			out = append(out, o.Name)
		}
	}
	return out
}

// namespaceContract runs the namespace view's contract on e's tables,
// with names that begin with prefix, so that runs on one database stay
// apart.
func namespaceContract(t *testing.T, e engine, prefix string, nss viewstore.Namespaces) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	name := func(n string) string { return prefix + n }

	if _, err := nss.Get(ctx, views, name("x")); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Get of a namespace never written: %v, want ErrNoRow", err)
	}

	write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.NamespaceRow{
			namespace(name("a.b"), false, 1), namespace(name("a-z"), false, 1), namespace(name("gone"), false, 1),
		} {
			if err := nss.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %s: %v", r.Name, err)
			}
		}
		if got, err := nss.Get(ctx, x, name("a.b")); err != nil || string(got) != string(namespace(name("a.b"), false, 1).Data) {
			t.Errorf("Get inside the writing transaction: %s, %v", got, err)
		}
	})
	head := write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.NamespaceRow{namespace(name("a.b"), false, 2), namespace(name("gone"), true, 2)} {
			if err := nss.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %s: %v", r.Name, err)
			}
		}
	})
	for _, r := range []viewstore.NamespaceRow{namespace(name("a.b"), false, 2), namespace(name("gone"), true, 2)} {
		if got, err := nss.Get(ctx, views, r.Name); err != nil || string(got) != string(r.Data) {
			t.Errorf("Get %s after a second Upsert: %s, %v; want %s", r.Name, got, err, r.Data)
		}
	}

	// A transaction rolled back leaves no row.
	ltx, err := e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := nss.Upsert(ctx, events.ViewsIn(ltx), namespace(name("never"), false, 1)); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := nss.Get(ctx, views, name("never")); !errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Get of a row rolled back: %v, want ErrNoRow", err)
	}

	// List: the live namespaces, bytewise ("-" before "."), at head.
	data, h, err := nss.List(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{name("a-z"), name("a.b")}, namedWith(t, prefix, data)); diff != "" || h != head {
		t.Errorf("List at %d (want the head %d), -want +got:\n%s", h, head, diff)
	}

	// After: tombstones kept, pages by name.
	for _, c := range []struct {
		after string
		limit int
		want  []string
	}{
		{prefix, 0, []string{name("a-z"), name("a.b"), name("gone")}},
		{prefix, 2, []string{name("a-z"), name("a.b")}},
		{name("a.b"), 0, []string{name("gone")}},
		{name("gone"), 0, []string{}},
	} {
		data, h, err := nss.After(ctx, views, c.after, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, namedWith(t, prefix, data)); diff != "" || h != head {
			t.Errorf("After(%q, %d) at %d (want the head %d), -want +got:\n%s", c.after, c.limit, h, head, diff)
		}
	}

	// InUse: a live pod's or ConfigMap's namespace without a live row of
	// its own; a tombstone is no row.
	pods, cms := viewstore.NewPods(), viewstore.New(viewstore.Objects("configmaps", false))
	pod := func(ns string, finalized bool) viewstore.PodRow {
		return viewstore.PodRow{Key: viewstore.Key{Namespace: ns, Name: "p"}, UID: ns + "-p", Finalized: finalized,
			Version: 1, ResourceVersion: 10, Data: []byte(`{}`)}
	}
	write(t, e.log, func(x *events.ViewTx) {
		for _, p := range []viewstore.PodRow{
			pod(name("pods"), false), pod(name("finalized"), true), pod(name("a.b"), false), pod(name("gone"), false),
		} {
			if err := pods.Upsert(ctx, x, p); err != nil {
				t.Fatalf("pod in %s: %v", p.Namespace, err)
			}
		}
		for _, r := range []viewstore.Row{obj(name("cms"), "c", false, 1), obj(name("cms-gone"), "c", true, 1), obj(name("a-z"), "c", false, 1)} {
			if err := cms.Upsert(ctx, x, r); err != nil {
				t.Fatalf("ConfigMap in %s: %v", r.Namespace, err)
			}
		}
	})
	inUse, err := nss.InUse(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	mine := []string{}
	for _, ns := range inUse {
		if strings.HasPrefix(ns, prefix) {
			mine = append(mine, ns)
		}
	}
	if diff := cmp.Diff([]string{name("cms"), name("gone"), name("pods")}, mine); diff != "" {
		t.Errorf("InUse, -want +got:\n%s", diff)
	}
}

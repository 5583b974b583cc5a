package viewstore_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/projections/viewstore"
)

// TestDeviceBindingsContract: the device binding view's table behaves
// the same on a real SQLite file and a real PostgreSQL, through each
// engine's own implementation and through NewDeviceBindings: a row reads
// back as written, bound or not, inside the writing transaction and after
// it, and not after a rollback; an upsert replaces it, an unbinding
// included; the bound names and those bound to one address come in
// bytewise name order, and no address is bound to "".
func TestDeviceBindingsContract(t *testing.T) {
	onEachEngineApart(t, viewstore.NewSQLiteDeviceBindings, viewstore.NewPostgresDeviceBindings, viewstore.NewDeviceBindings, deviceBindingContract)
}

// binding is a device name's row: its JSON names it, its address and v.
func binding(name, address string, v int64) viewstore.DeviceBindingRow {
	return viewstore.DeviceBindingRow{Name: name, Address: address, Version: v, ResourceVersion: v * 10,
		Data: fmt.Appendf(nil, `{"name":%q,"address":%q,"v":%d}`, name, address, v)}
}

// deviceBindingContract runs the device binding view's contract on e's
// table, with names and addresses that begin with prefix, so that runs on
// one database stay apart.
func deviceBindingContract(t *testing.T, e engine, prefix string, bindings viewstore.DeviceBindings) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	name := func(n string) string { return prefix + n }
	addr1, addr2 := name("10.0.0.1"), name("10.0.0.2")

	if _, err := bindings.Get(ctx, views, name("x")); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Get of a name never bound: %v, want ErrNoRow", err)
	}

	write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.DeviceBindingRow{
			binding(name("a.b"), addr1, 1), binding(name("a-z"), addr1, 1), binding(name("moved"), addr1, 1), binding(name("freed"), addr2, 1),
		} {
			if err := bindings.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %s: %v", r.Name, err)
			}
		}
		if got, err := bindings.Get(ctx, x, name("a.b")); err != nil || string(got) != string(binding(name("a.b"), addr1, 1).Data) {
			t.Errorf("Get inside the writing transaction: %s, %v", got, err)
		}
	})
	write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.DeviceBindingRow{binding(name("moved"), addr2, 2), binding(name("freed"), "", 2)} {
			if err := bindings.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %s: %v", r.Name, err)
			}
		}
	})
	for _, r := range []viewstore.DeviceBindingRow{binding(name("moved"), addr2, 2), binding(name("freed"), "", 2)} {
		if got, err := bindings.Get(ctx, views, r.Name); err != nil || string(got) != string(r.Data) {
			t.Errorf("Get %s after a second Upsert: %s, %v; want %s", r.Name, got, err, r.Data)
		}
	}

	// A transaction rolled back leaves no row.
	ltx, err := e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := bindings.Upsert(ctx, events.ViewsIn(ltx), binding(name("never"), addr1, 1)); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := bindings.Get(ctx, views, name("never")); !errors.Is(err, viewstore.ErrNoRow) {
		t.Errorf("Get of a row rolled back: %v, want ErrNoRow", err)
	}

	// Bound: every name with an address, bytewise ("-" before ".").
	data, err := bindings.Bound(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{name("a-z"), name("a.b"), name("moved")}, namedWith(t, prefix, data)); diff != "" {
		t.Errorf("Bound, -want +got:\n%s", diff)
	}

	for _, c := range []struct {
		address string
		want    []string
	}{
		{addr1, []string{name("a-z"), name("a.b")}},
		{addr2, []string{name("moved")}},
		{name("10.0.0.3"), []string{}},
		{"", []string{}},
	} {
		data, err := bindings.BoundTo(ctx, views, c.address)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, namedWith(t, prefix, data)); diff != "" {
			t.Errorf("BoundTo(%q), -want +got:\n%s", c.address, diff)
		}
	}
}

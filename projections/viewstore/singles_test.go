package viewstore_test

import (
	"errors"
	"testing"

	"herd/events"
	"herd/projections/viewstore"
)

// TestSingleContract: a one-row view table (the fleet's health, the
// kubelet targets) behaves the same on a real SQLite file and a real
// PostgreSQL, through each engine's own implementation and through
// NewSingle: no row before its first write, read alone or at the log's
// head; an upsert replaces it; the head comes back with it, and without
// it; rows of other names in the table are not its own.
func TestSingleContract(t *testing.T) {
	for _, table := range []string{"fleet_health", "kubelet_targets"} {
		t.Run(table, func(t *testing.T) {
			onEachEngine(t,
				func() viewstore.Single { return viewstore.NewSQLiteSingle(table, "own") },
				func() viewstore.Single { return viewstore.NewPostgresSingle(table, "own") },
				func() viewstore.Single { return viewstore.NewSingle(table, "any") },
				func(t *testing.T, e engine, own bool, row viewstore.Single) {
					other := viewstore.NewSingle(table, "other")
					if !own {
						other = viewstore.NewSingle(table, "own")
					}
					singleContract(t, e, row, other)
				})
		})
	}
}

// singleContract runs the one-row table's contract on row, beside the
// row of another name, other, which it writes too.
func singleContract(t *testing.T, e engine, row, other viewstore.Single) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}

	if _, err := row.Get(ctx, views); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Get before the first write: %v, want ErrNoRow", err)
	}
	head := write(t, e.log, func(x *events.ViewTx) {
		if err := other.Upsert(ctx, x, viewstore.SingleRow{Version: 9, ResourceVersion: 90, Data: []byte(`{"other":true}`)}); err != nil {
			t.Fatal(err)
		}
	})
	if data, h, err := row.AtHead(ctx, views); err != nil || data != nil || h != head {
		t.Errorf("AtHead before the first write: %q at %d, %v; want no row at the head %d", data, h, err, head)
	}

	write(t, e.log, func(x *events.ViewTx) {
		if err := row.Upsert(ctx, x, viewstore.SingleRow{Version: 1, ResourceVersion: 10, Data: []byte(`{"v":1}`)}); err != nil {
			t.Fatal(err)
		}
		if data, err := row.Get(ctx, x); err != nil || string(data) != `{"v":1}` {
			t.Errorf("Get inside the writing transaction: %q, %v", data, err)
		}
	})
	head = write(t, e.log, func(x *events.ViewTx) {
		if err := row.Upsert(ctx, x, viewstore.SingleRow{Version: 2, ResourceVersion: 20, Data: []byte(`{"v":2}`)}); err != nil {
			t.Fatal(err)
		}
	})
	if data, err := row.Get(ctx, views); err != nil || string(data) != `{"v":2}` {
		t.Errorf("Get after a second Upsert: %q, %v; want the second row", data, err)
	}
	if data, h, err := row.AtHead(ctx, views); err != nil || string(data) != `{"v":2}` || h != head {
		t.Errorf("AtHead: %q at %d, %v; want the second row at the head %d", data, h, err, head)
	}
	if data, err := other.Get(ctx, views); err != nil || string(data) != `{"other":true}` {
		t.Errorf("the other row: %q, %v; want it as it was written", data, err)
	}
}

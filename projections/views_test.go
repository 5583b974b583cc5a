package projections

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/projections/command"
)

// TestViewsDescribeEveryAggregate checks the descriptions against the
// domain and the schema: every aggregate in the log has exactly one view,
// every stream of it routes to that view, the views' tables are exactly
// the described tables, and every event type of an
// aggregate is written, read back and folded through its description.
func TestViewsDescribeEveryAggregate(t *testing.T) {
	store := openStore(t)
	ctx := t.Context()
	var described []string
	for _, v := range views {
		described = append(described, v.log().Name())
	}
	var inLog []string
	for _, a := range domain.Aggregates() {
		inLog = append(inLog, a.Name())
	}
	slices.Sort(described)
	if diff := cmp.Diff(inLog, described); diff != "" {
		t.Errorf("aggregates with a view (-in the log +described):\n%s", diff)
	}

	var tables []string
	for _, tb := range allViewTables() {
		tables = append(tables, tb.name)
	}
	slices.Sort(tables)
	// Every described table is a view's, but the checkpoint of the
	// rebuild itself.
	var created []string
	for _, tb := range describedTables() {
		created = append(created, tb.Name)
	}
	created = slices.DeleteFunc(created, func(name string) bool { return name == "projection_checkpoints" })
	slices.Sort(created)
	created = slices.Compact(created)
	if diff := cmp.Diff(created, tables); diff != "" {
		t.Errorf("view tables (-described +a view's):\n%s", diff)
	}

	for _, v := range views {
		a := v.log()
		t.Run(a.Name(), func(t *testing.T) {
			stream := a.Stream("default/x")
			if got, ok := viewOf(stream); !ok || got != v {
				t.Errorf("stream %s routes to %v, want its own view", stream, got)
			}
			sqlTx, err := store.DB().BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = sqlTx.Rollback() }()
			tx := events.NewViewTx(sqlTx, events.EngineSQLite.Dialect())
			r := v.rebuild(&snapshotTaker{})
			for i, s := range a.Events() {
				ev, err := domain.UnmarshalEvent(s.Type, []byte(`{}`))
				if err != nil {
					t.Fatalf("%s does not decode: %v", s.Type, err)
				}
				stored, err := command.EncodeEvents([]domain.Event{ev})
				if err != nil {
					t.Fatal(err)
				}
				if stored[0].SchemaVersion != s.Version {
					t.Errorf("%s is written at schema version %d, its list says %d", s.Type, stored[0].SchemaVersion, s.Version)
				}
				back, err := domain.UnmarshalEvent(s.Type, stored[0].Payload)
				if err != nil || !cmp.Equal(ev, back) {
					t.Errorf("%s does not round-trip: %v, %v", s.Type, back, err)
				}
				rec := events.Record{Stream: stream, Version: int64(i + 1), Position: int64(i + 1), Type: s.Type, Payload: stored[0].Payload}
				if err := r.apply(ctx, tx, rec, back); err != nil {
					t.Errorf("%s does not fold: %v", s.Type, err)
				}
			}
			if err := r.flush(ctx, tx); err != nil {
				t.Errorf("rows do not write: %v", err)
			}
		})
	}
}

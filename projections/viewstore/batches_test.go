package viewstore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func TestBatchedInsertsGatherRunsInOrder(t *testing.T) {
	const (
		ins    = `INSERT INTO t (a, b) VALUES (?, ?)`
		upsert = "INSERT INTO u (k, v) VALUES (?, ?)\nON CONFLICT (k) DO UPDATE SET v = excluded.v"
		del    = `DELETE FROM t WHERE a = ?`
		sel    = `INSERT INTO t (a, b) SELECT a, b FROM u WHERE k = ?`
	)
	tests := []struct {
		name string
		in   []recordedExec
		want []recordedExec
	}{
		{
			name: "a run of one insert is one statement",
			in:   []recordedExec{{ins, []any{1, "x"}}, {ins, []any{2, "y"}}, {ins, []any{3, "z"}}},
			want: []recordedExec{{`INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?)`, []any{1, "x", 2, "y", 3, "z"}}},
		},
		{
			name: "an upsert keeps its conflict clause after the rows",
			in:   []recordedExec{{upsert, []any{"k", 1}}, {upsert, []any{"k", 2}}},
			want: []recordedExec{{"INSERT INTO u (k, v) VALUES (?, ?), (?, ?)\nON CONFLICT (k) DO UPDATE SET v = excluded.v", []any{"k", 1, "k", 2}}},
		},
		{
			name: "another statement ends the run and runs in its place",
			in:   []recordedExec{{ins, []any{1, "x"}}, {del, []any{1}}, {ins, []any{1, "y"}}, {upsert, []any{"k", 1}}},
			want: []recordedExec{{ins, []any{1, "x"}}, {del, []any{1}}, {ins, []any{1, "y"}}, {upsert, []any{"k", 1}}},
		},
		{
			name: "an insert of many rows already is not gathered",
			in:   []recordedExec{{`INSERT INTO t (a, b) VALUES (?, ?), (?, ?)`, []any{1, "x", 2, "y"}}, {`INSERT INTO t (a, b) VALUES (?, ?), (?, ?)`, []any{3, "z", 4, "w"}}},
			want: []recordedExec{{`INSERT INTO t (a, b) VALUES (?, ?), (?, ?)`, []any{1, "x", 2, "y"}}, {`INSERT INTO t (a, b) VALUES (?, ?), (?, ?)`, []any{3, "z", 4, "w"}}},
		},
		{
			name: "an insert from a select is not gathered",
			in:   []recordedExec{{sel, []any{"k"}}, {sel, []any{"l"}}},
			want: []recordedExec{{sel, []any{"k"}}, {sel, []any{"l"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewRecorded(events.EngineSQLite.Dialect())
			b := NewBatches(got)
			for _, e := range tt.in {
				if _, err := b.ExecContext(t.Context(), e.query, e.args...); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.execs, cmp.AllowUnexported(recordedExec{})); diff != "" {
				t.Errorf("statements run (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatchedInsertsStayUnderTheParameterLimit(t *testing.T) {
	got := NewRecorded(events.EngineSQLite.Dialect())
	b := NewBatches(got)
	ctx := context.Background()
	for i := range 1000 {
		if _, err := b.ExecContext(ctx, `INSERT INTO t (a, b, c) VALUES (?, ?, ?)`, i, i, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, e := range got.execs {
		if len(e.args) > maxBatchArgs {
			t.Errorf("a statement of %d parameters, more than %d", len(e.args), maxBatchArgs)
		}
		rows += len(e.args) / 3
	}
	if rows != 1000 {
		t.Errorf("%d rows written, want 1000", rows)
	}
}

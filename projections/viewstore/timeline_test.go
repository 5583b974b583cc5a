package viewstore_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/projections/viewstore"
)

// TestTimelineContract: the node timeline's table behaves the same on a
// real SQLite file and a real PostgreSQL, through each engine's own
// implementation and through NewTimeline: rows read back as written, the
// time in UTC to the nanosecond, in log order (position, then seq);
// a node's rows after a position, up to a limit (0: all); the newest
// rows of every node, oldest first; the rows of a stretch (after, upTo];
// a second row at one position and seq is refused; a rolled back add
// leaves nothing.
func TestTimelineContract(t *testing.T) {
	onEachEngine(t, viewstore.NewSQLiteTimeline, viewstore.NewPostgresTimeline, viewstore.NewTimeline,
		func(t *testing.T, e engine, own bool, tl viewstore.Timeline) {
			// Each run's positions are above the one's before, so that
			// the newest rows are its own.
			if own {
				timelineContract(t, e, "own-", 1000, tl)
			} else {
				timelineContract(t, e, "any-", 2000, tl)
			}
		})
}

func timelineContract(t *testing.T, e engine, prefix string, base int64, tl viewstore.Timeline) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	n1, n2 := prefix+"n1", prefix+"n2"
	at := time.Date(2026, 11, 29, 13, 0, 0, 123456789, time.FixedZone("CET", 3600))
	row := func(pos int64, seq int, node, kind string) viewstore.TimelineRow {
		return viewstore.TimelineRow{
			Position: base + pos, Seq: seq, Node: node, At: at.Add(time.Duration(pos) * time.Second),
			Kind: kind, Type: "Normal", Reason: "Because", Message: "it happened: " + kind,
		}
	}
	// As they come back: the time in UTC.
	read := func(r viewstore.TimelineRow) viewstore.TimelineRow { r.At = r.At.UTC(); return r }
	rows := []viewstore.TimelineRow{
		row(1, 0, n1, "Registered"),
		row(2, 0, n2, "Registered"),
		row(3, 0, n1, "HeartbeatMissed"),
		row(3, 1, n1, "ConditionChanged"),
		row(5, 0, n1, "Deleted"),
	}
	rows[2].Type, rows[2].Reason, rows[2].Message = "Warning", "", ""
	want := func(idx ...int) []viewstore.TimelineRow {
		out := []viewstore.TimelineRow{}
		for _, i := range idx {
			out = append(out, read(rows[i]))
		}
		return out
	}
	write(t, e.log, func(x *events.ViewTx) {
		// Added out of log order: reads order them.
		for _, i := range []int{4, 0, 3, 2, 1} {
			if err := tl.Add(ctx, x, rows[i]); err != nil {
				t.Fatalf("Add %d/%d: %v", rows[i].Position, rows[i].Seq, err)
			}
		}
	})

	got := func(what string, rs []viewstore.TimelineRow, err error, want []viewstore.TimelineRow) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if rs == nil {
			rs = []viewstore.TimelineRow{}
		}
		if diff := cmp.Diff(want, rs); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	rs, err := tl.Node(ctx, views, n1, 0, 0)
	got("Node(n1, 0, all)", rs, err, want(0, 2, 3, 4))
	rs, err = tl.Node(ctx, views, n1, base+1, 2)
	got("Node(n1, after 1, 2)", rs, err, want(2, 3))
	rs, err = tl.Node(ctx, views, n1, base+3, 0)
	got("Node(n1, after 3, all)", rs, err, want(4))
	rs, err = tl.Node(ctx, views, prefix+"none", 0, 0)
	got("Node of a node with no rows", rs, err, want())

	rs, err = tl.Recent(ctx, views, 2)
	got("Recent(2)", rs, err, want(3, 4))
	rs, err = tl.Recent(ctx, views, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ours []viewstore.TimelineRow
	for _, r := range rs {
		if r.Position > base && r.Position < base+1000 {
			ours = append(ours, r)
		}
	}
	got("Recent(all)", ours, nil, want(0, 1, 2, 3, 4))

	rs, err = tl.Between(ctx, views, base+1, base+3)
	got("Between(1, 3]", rs, err, want(1, 2, 3))
	rs, err = tl.Between(ctx, views, base+3, base+4)
	got("Between(3, 4]", rs, err, want())

	// A second row at one place is refused, and the first stays.
	ltx, err := e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dup := row(1, 0, n2, "Impostor")
	if err := tl.Add(ctx, events.ViewsIn(ltx), dup); err == nil {
		t.Error("Add of a second row at one position and seq: no error")
	}
	_ = ltx.Rollback()
	// A rolled back add leaves nothing.
	ltx, err = e.log.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.Add(ctx, events.ViewsIn(ltx), row(4, 0, n2, "Never")); err != nil {
		t.Fatal(err)
	}
	if err := ltx.Rollback(); err != nil {
		t.Fatal(err)
	}
	rs, err = tl.Node(ctx, views, n2, 0, 0)
	got("Node(n2) after a refused and a rolled back add", rs, err, want(1))
}

// TestTimelineRefusesAHandleOfNoEngine: NewTimeline does not guess the
// engine of a handle that does not tell it.
func TestTimelineRefusesAHandleOfNoEngine(t *testing.T) {
	e := openSQLite(t)
	db, _ := events.SQLDB(e.log)
	if _, err := viewstore.NewTimeline().Recent(t.Context(), db, 1); err == nil {
		t.Error("Recent through a bare *sql.DB: no error")
	}
}

// TestTimelineAddAllWritesWhatAddWrites: AddAll writes the rows Add
// would, on both engines and through NewTimeline: on PostgreSQL in one
// statement for one event's entries and in several past one statement's
// parameters, on SQLite a statement a row; a
// set with a row at a place already taken is refused and leaves none of
// its rows.
func TestTimelineAddAllWritesWhatAddWrites(t *testing.T) {
	onEachEngine(t, viewstore.NewSQLiteTimeline, viewstore.NewPostgresTimeline, viewstore.NewTimeline,
		func(t *testing.T, e engine, own bool, tl viewstore.Timeline) {
			ctx := t.Context()
			db, eng := events.SQLDB(e.log)
			views := pool{db: db, d: eng.Dialect()}
			prefix, base := "all-any-", int64(40_000)
			if own {
				prefix, base = "all-own-", 30_000
			}
			at := time.Date(2026, 11, 30, 18, 0, 0, 987654321, time.FixedZone("CET", 3600))
			rowsOf := func(node string, pos int64, n int) []viewstore.TimelineRow {
				rs := make([]viewstore.TimelineRow, n)
				for seq := range rs {
					rs[seq] = viewstore.TimelineRow{
						Position: base + pos, Seq: seq, Node: prefix + node, At: at.Add(time.Duration(seq) * time.Millisecond),
						Kind: fmt.Sprintf("Kind%d", seq), Type: "Warning", Reason: "NodeStatusUnknown", Message: fmt.Sprintf("part %d's 'quoted' ☃", seq),
					}
				}
				rs[0].Reason, rs[0].Message = "", "" // empty text reads back empty
				return rs
			}
			mark, many := rowsOf("mark", 1, 9), rowsOf("many", 2, 300)

			// One event's entries are one statement on PostgreSQL, a
			// statement a row on SQLite.
			rec := events.NewRecorder(eng.Dialect(), 0)
			if err := tl.AddAll(ctx, rec, mark); err != nil {
				t.Fatal(err)
			}
			want := len(mark)
			if e.name == "postgres" {
				want = 1
			}
			if n := len(rec.Statements()); n != want {
				t.Errorf("AddAll of %d rows ran %d statements, want %d", len(mark), n, want)
			}
			write(t, e.log, func(x *events.ViewTx) {
				if err := tl.AddAll(ctx, x, mark); err != nil {
					t.Fatalf("AddAll of a mark's rows: %v", err)
				}
				if err := tl.AddAll(ctx, x, many); err != nil {
					t.Fatalf("AddAll of %d rows: %v", len(many), err)
				}
				if err := tl.AddAll(ctx, x, nil); err != nil {
					t.Fatalf("AddAll of no rows: %v", err)
				}
			})
			// What Add writes reads back the same.
			added := rowsOf("added", 3, 9)
			write(t, e.log, func(x *events.ViewTx) {
				for _, r := range added {
					if err := tl.Add(ctx, x, r); err != nil {
						t.Fatal(err)
					}
				}
			})
			utc := func(rs []viewstore.TimelineRow) []viewstore.TimelineRow {
				out := make([]viewstore.TimelineRow, len(rs))
				for i, r := range rs {
					r.At = r.At.UTC()
					out[i] = r
				}
				return out
			}
			for _, w := range [][]viewstore.TimelineRow{mark, many, added} {
				got, err := tl.Node(ctx, views, w[0].Node, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(utc(w), got); diff != "" {
					t.Errorf("rows of %s (-want +got):\n%s", w[0].Node, diff)
				}
			}

			// A set with one row at a taken place is refused whole.
			ltx, err := e.log.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			clash := rowsOf("clash", 4, 3)
			clash[2].Position, clash[2].Seq = mark[5].Position, mark[5].Seq
			err = tl.AddAll(ctx, events.ViewsIn(ltx), clash)
			if err == nil || !strings.Contains(err.Error(), "node_timeline") {
				t.Errorf("AddAll with a row at a taken place: %v, want an error naming node_timeline", err)
			}
			_ = ltx.Rollback()
			got, err := tl.Node(ctx, views, prefix+"clash", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Errorf("a refused AddAll left %d rows", len(got))
			}
		})
}

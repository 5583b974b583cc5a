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
// an event's entries read back one by one, and a limit counts them; a
// second event at one position is refused; a rolled back add leaves
// nothing.
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
		// Added out of log order: reads order them. The event at 3 has
		// two entries, added together.
		for _, i := range []int{4, 0, 1} {
			if err := tl.Add(ctx, x, rows[i]); err != nil {
				t.Fatalf("Add %d/%d: %v", rows[i].Position, rows[i].Seq, err)
			}
		}
		if err := tl.AddAll(ctx, x, rows[2:4]); err != nil {
			t.Fatalf("AddAll at %d: %v", rows[2].Position, err)
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
	rs, err = tl.Node(ctx, views, n1, 0, 2)
	got("Node(n1, 0, 2)", rs, err, want(0, 2))
	rs, err = tl.Node(ctx, views, n1, base+3, 0)
	got("Node(n1, after 3, all)", rs, err, want(4))
	rs, err = tl.Node(ctx, views, prefix+"none", 0, 0)
	got("Node of a node with no rows", rs, err, want())

	rs, err = tl.Recent(ctx, views, 2)
	got("Recent(2)", rs, err, want(3, 4))
	rs, err = tl.Recent(ctx, views, 3)
	got("Recent(3)", rs, err, want(2, 3, 4))
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
	rs, err = tl.Between(ctx, views, base+2, base+3)
	got("Between(2, 3]", rs, err, want(2, 3))

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

// timelineEvent is the entries of one event at base+pos, of node, n of
// them, each with its own text, some at the first's time and some not,
// with text that needs escaping in JSON.
func timelineEvent(base, pos int64, node string, n int) []viewstore.TimelineRow {
	at := time.Date(2026, 11, 30, 18, 0, 0, 987654321, time.FixedZone("CET", 3600)).Add(time.Duration(pos) * time.Second)
	rs := make([]viewstore.TimelineRow, n)
	for seq := range rs {
		rs[seq] = viewstore.TimelineRow{
			Position: base + pos, Seq: seq, Node: node, At: at,
			Kind: fmt.Sprintf("Kind%d", seq), Type: "Warning", Reason: "NodeStatusUnknown",
			Message: fmt.Sprintf("part %d's \"quoted\" <b>&</b> \\ ☃\n\ttab", seq),
		}
		if seq%3 == 2 {
			rs[seq].At = at.Add(time.Duration(seq) * time.Nanosecond)
			rs[seq].Type = "Normal"
		}
	}
	rs[0].Reason, rs[0].Message = "", "" // empty text reads back empty
	if n > 1 {
		rs[n-1].Reason = ""
	}
	return rs
}

// inUTC is rs as they read back: the time in UTC.
func inUTC(rs []viewstore.TimelineRow) []viewstore.TimelineRow {
	out := make([]viewstore.TimelineRow, len(rs))
	for i, r := range rs {
		r.At = r.At.UTC()
		out[i] = r
	}
	return out
}

// TestTimelineWritesAnEventInOneRow: AddAll writes one event's entries as
// one row in one statement, on both engines and through NewTimeline,
// whatever their number (one, a mark's nine, 300), and they read back
// as written; several events are a row each. Entries that are not whole
// events in order (a seq missing, repeated or not from 0, two nodes at
// one position) are refused and nothing of the set is written; an event
// at a position a stored row has is refused.
func TestTimelineWritesAnEventInOneRow(t *testing.T) {
	onEachEngine(t, viewstore.NewSQLiteTimeline, viewstore.NewPostgresTimeline, viewstore.NewTimeline,
		func(t *testing.T, e engine, own bool, tl viewstore.Timeline) {
			ctx := t.Context()
			db, eng := events.SQLDB(e.log)
			views := pool{db: db, d: eng.Dialect()}
			prefix, base := "one-any-", int64(40_000)
			if own {
				prefix, base = "one-own-", 30_000
			}
			single, mark, many := timelineEvent(base, 1, prefix+"single", 1), timelineEvent(base, 2, prefix+"mark", 9), timelineEvent(base, 3, prefix+"many", 300)
			two := append(timelineEvent(base, 4, prefix+"two", 2), timelineEvent(base, 5, prefix+"two", 3)...)
			for _, w := range [][]viewstore.TimelineRow{single, mark, many} {
				rec := events.NewRecorder(eng.Dialect(), 0)
				if err := tl.AddAll(ctx, rec, w); err != nil {
					t.Fatal(err)
				}
				if n := len(rec.Statements()); n != 1 {
					t.Errorf("AddAll of an event of %d entries ran %d statements, want 1", len(w), n)
				}
			}
			write(t, e.log, func(x *events.ViewTx) {
				for _, w := range [][]viewstore.TimelineRow{single, mark, many, two, nil} {
					if err := tl.AddAll(ctx, x, w); err != nil {
						t.Fatalf("AddAll of %d entries: %v", len(w), err)
					}
				}
			})
			for _, w := range [][]viewstore.TimelineRow{single, mark, many, two} {
				got, err := tl.Node(ctx, views, w[0].Node, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(inUTC(w), got); diff != "" {
					t.Errorf("entries of %s (-want +got):\n%s", w[0].Node, diff)
				}
				var stored int
				if err := db.QueryRowContext(ctx, eng.Dialect().Bind("SELECT count(*) FROM node_timeline WHERE node = ?"), w[0].Node).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				if events := w[len(w)-1].Position - w[0].Position + 1; int64(stored) != events {
					t.Errorf("%s's %d entries are %d rows, want %d, a row an event", w[0].Node, len(w), stored, events)
				}
			}

			// Entries that are not whole events in order: refused,
			// nothing written, though the transaction commits.
			bad := map[string][]viewstore.TimelineRow{}
			event := func(pos int64, n int) []viewstore.TimelineRow { return timelineEvent(base, pos, prefix+"bad", n) }
			bad["not from seq 0"] = append(event(10, 2), event(11, 3)[1:]...)
			bad["a seq missing"] = append(event(12, 2), event(13, 3)[0], event(13, 3)[2])
			bad["a seq repeated"] = append(event(14, 2), event(14, 2)...)
			bad["out of order"] = []viewstore.TimelineRow{event(15, 2)[1], event(15, 2)[0]}
			bad["apart"] = append(append(event(16, 2), event(17, 1)...), event(16, 3)[2])
			twoNodes := event(18, 2)
			twoNodes[1].Node = prefix + "other"
			bad["two nodes at one position"] = twoNodes
			write(t, e.log, func(x *events.ViewTx) {
				for what, rs := range bad {
					err := tl.AddAll(ctx, x, rs)
					if err == nil || !strings.Contains(err.Error(), "node_timeline") {
						t.Errorf("AddAll of entries %s: %v, want an error naming node_timeline", what, err)
					}
				}
				if err := tl.Add(ctx, x, event(19, 2)[1]); err == nil {
					t.Error("Add of an entry at seq 1: no error")
				}
			})
			for _, node := range []string{prefix + "bad", prefix + "other"} {
				if got, err := tl.Node(ctx, views, node, 0, 0); err != nil || len(got) != 0 {
					t.Errorf("refused entries left %d entries of %s (%v)", len(got), node, err)
				}
			}

			// An event at a taken position is refused.
			ltx, err := e.log.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			clash := timelineEvent(base, 2, prefix+"clash", 3)
			err = tl.AddAll(ctx, events.ViewsIn(ltx), clash)
			if err == nil || !strings.Contains(err.Error(), "node_timeline") {
				t.Errorf("AddAll of an event at a taken position: %v, want an error naming node_timeline", err)
			}
			_ = ltx.Rollback()
		})
}

// TestTimelineReadsRowsOfBeforeAndNowAlike: the entries of the same
// events read back the same, through every read and every limit, whether
// they were written as herd does now (a row an event), as a herd before
// wrote them (a row an entry, AddAsBefore), or some each way, on both
// engines: what the layout before gave for the same rows (ordered by
// position and seq, limited to the first or newest so many), limits
// cutting inside an event's entries included, and pages continued after
// any entry read every entry once. TimelineEntriesSQL, what replay
// --verify compares, gives the same entries.
func TestTimelineReadsRowsOfBeforeAndNowAlike(t *testing.T) {
	onEachEngine(t, viewstore.NewSQLiteTimeline, viewstore.NewPostgresTimeline, viewstore.NewTimeline,
		func(t *testing.T, e engine, own bool, tl viewstore.Timeline) {
			base := int64(100_000)
			if !own {
				base = 200_000
			}
			for _, layout := range []string{"before", "now", "mixed"} {
				base += 10_000 // each layout's rows the newest when it is read
				t.Run(layout, func(t *testing.T) { timelineReadsAlike(t, e, tl, layout, base) })
			}
		})
}

func timelineReadsAlike(t *testing.T, e engine, tl viewstore.Timeline, layout string, base int64) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	a, b := fmt.Sprintf("alike-%d-a", base), fmt.Sprintf("alike-%d-b", base)
	var (
		evs [][]viewstore.TimelineRow
		all []viewstore.TimelineRow
	)
	for i, n := range []int{1, 9, 3, 1, 9, 2, 1, 4} {
		node := a
		if i%3 == 2 {
			node = b
		}
		ev := timelineEvent(base, int64(i+1), node, n)
		evs = append(evs, ev)
		all = append(all, inUTC(ev)...)
	}
	write(t, e.log, func(x *events.ViewTx) {
		for i, ev := range evs {
			if layout == "now" || (layout == "mixed" && i%2 == 1) {
				if err := tl.AddAll(ctx, x, ev); err != nil {
					t.Fatal(err)
				}
				continue
			}
			for _, r := range ev {
				if err := viewstore.AddAsBefore(ctx, x, r); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	check := func(what string, got []viewstore.TimelineRow, err error, want []viewstore.TimelineRow) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(want) == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	// The layout before's answers: its rows, filtered, ordered, limited.
	first := func(rs []viewstore.TimelineRow, limit int) []viewstore.TimelineRow {
		if limit > 0 && len(rs) > limit {
			return rs[:limit]
		}
		return rs
	}
	for _, node := range []string{a, b} {
		for after := base; after <= base+int64(len(evs)); after++ {
			var of []viewstore.TimelineRow
			for _, r := range all {
				if r.Node == node && r.Position > after {
					of = append(of, r)
				}
			}
			for limit := 0; limit <= len(of)+1; limit++ {
				got, err := tl.Node(ctx, views, node, after, limit)
				check(fmt.Sprintf("Node(%s, after %d, %d)", node, after-base, limit), got, err, first(of, limit))
			}
		}
	}
	// Pages after an entry, wherever it is in its event: the entries
	// after it, its event's first, whatever the limit; and pages of
	// each limit, each from the last entry of the one before, read every
	// entry of the node once, in order.
	for _, node := range []string{a, b} {
		var of []viewstore.TimelineRow
		for _, r := range all {
			if r.Node == node {
				of = append(of, r)
			}
		}
		for i, r := range of {
			for limit := 0; limit <= len(of)-i; limit++ {
				got, err := tl.NodeAfterEntry(ctx, views, node, viewstore.TimelinePlace{Position: r.Position, Seq: r.Seq}, limit)
				check(fmt.Sprintf("NodeAfterEntry(%s, after %d/%d, %d)", node, r.Position-base, r.Seq, limit), got, err, first(of[i+1:], limit))
			}
		}
		for limit := 1; limit <= len(of); limit++ {
			page, err := tl.Node(ctx, views, node, base, limit)
			read := page
			for err == nil && len(page) == limit {
				last := page[len(page)-1]
				page, err = tl.NodeAfterEntry(ctx, views, node, viewstore.TimelinePlace{Position: last.Position, Seq: last.Seq}, limit)
				read = append(read, page...)
			}
			check(fmt.Sprintf("%s paged by %d", node, limit), read, err, of)
		}
	}
	for limit := 1; limit <= len(all); limit++ {
		got, err := tl.Recent(ctx, views, limit)
		check(fmt.Sprintf("Recent(%d)", limit), got, err, all[len(all)-limit:])
	}
	for after := base; after <= base+int64(len(evs)); after++ {
		for upTo := after; upTo <= base+int64(len(evs))+1; upTo++ {
			var want []viewstore.TimelineRow
			for _, r := range all {
				if r.Position > after && r.Position <= upTo {
					want = append(want, r)
				}
			}
			got, err := tl.Between(ctx, views, after, upTo)
			check(fmt.Sprintf("Between(%d, %d]", after-base, upTo-base), got, err, want)
		}
	}

	// What verify compares: the same entries, by SQL alone.
	rows, err := views.QueryContext(ctx, "SELECT position, seq, node, at, kind, reason, message, type FROM ("+
		viewstore.TimelineEntriesSQL(eng, "node_timeline")+") x WHERE position > ? AND position <= ? ORDER BY position, seq",
		base, base+int64(len(evs)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var bySQL []viewstore.TimelineRow
	for rows.Next() {
		var (
			r  viewstore.TimelineRow
			at string
		)
		if err := rows.Scan(&r.Position, &r.Seq, &r.Node, &at, &r.Kind, &r.Reason, &r.Message, &r.Type); err != nil {
			t.Fatal(err)
		}
		if r.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			t.Fatal(err)
		}
		bySQL = append(bySQL, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	check("TimelineEntriesSQL", bySQL, nil, all)
}

// TestTimelineKeepsTextNotUTF8: an event whose text is not UTF-8, which
// JSON would not keep as it is, is written a row an entry and reads back
// byte for byte (SQLite; PostgreSQL's text is UTF-8 only).
func TestTimelineKeepsTextNotUTF8(t *testing.T) {
	e := openSQLite(t)
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	tl := viewstore.NewSQLiteTimeline()
	ev := timelineEvent(0, 1, "latin1", 3)
	ev[2].Message = "caf\xe9"
	write(t, e.log, func(x *events.ViewTx) {
		if err := tl.AddAll(ctx, x, ev); err != nil {
			t.Fatal(err)
		}
	})
	got, err := tl.Node(ctx, views, "latin1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(inUTC(ev), got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

package projections

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestVerifyIsCleanOnATimelineWrittenBefore: a log whose node timeline a
// herd before wrote, a row an entry, or some events so and some a row
// an event as now, verifies clean against a rebuild (which writes a row
// an event), on SQLite (Verify, a copy of the file) and on PostgreSQL
// (VerifyInPlace); the node's timeline reads the same whichever way its
// rows are, and on a database from before the column more, given it by
// the table's description; and an entry changed behind herd's back, one a mark stands
// for, is a difference in node_timeline.
func TestVerifyIsCleanOnATimelineWrittenBefore(t *testing.T) {
	for _, e := range bothEngines {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			var (
				log   events.Log
				store *events.Store
			)
			if e.name == "sqlite" {
				store = openStore(t)
				log = store.Log()
			} else {
				log = eventstest.OpenPostgres(t, pgtest.URL(t))
				if err := Migrate(ctx, log); err != nil {
					t.Fatal(err)
				}
			}
			verify := func() *Difference {
				t.Helper()
				var (
					diff *Difference
					err  error
				)
				if store != nil {
					diff, _, err = Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 3})
				} else {
					diff, _, err = VerifyInPlace(ctx, log, RebuildOptions{BatchSize: 3})
				}
				if err != nil {
					t.Fatal(err)
				}
				return diff
			}
			clk := clocktesting.NewFakeClock(t0)
			w := NewWriter(log, clk, nil)
			node := func(name string, cmd domain.NodeCommand) domain.Node {
				t.Helper()
				n, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name}, cmd)
				if err != nil {
					t.Fatalf("%T on %s: %v", cmd, name, err)
				}
				return n
			}
			heard := map[string]time.Time{}
			for _, name := range []string{"a", "b", "c"} {
				node(name, register(name, domain.KindLinux))
				clk.Step(time.Second)
				heard[name] = node(name, metrics(600)).LastHeartbeat
			}
			clk.Step(time.Minute)
			for _, name := range []string{"a", "b"} {
				// Judged silent by the heartbeat herd last had.
				node(name, domain.MarkNodeUnreachable{LastHeard: heard[name]})
			}
			node("c", domain.SetNodeSchedulable{Unschedulable: true})
			view := NewTimelineView(log)
			readAll := func() map[string][]TimelineEntry {
				t.Helper()
				out := map[string][]TimelineEntry{}
				for _, name := range []string{"a", "b", "c"} {
					es, err := view.Node(ctx, name, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					out[name] = es
				}
				return out
			}
			now := readAll()
			if n := len(now["a"]); n < 5 {
				t.Fatalf("a's timeline has %d entries; a mark stands for more", n)
			}
			if d := verify(); d != nil {
				t.Fatalf("verify of the timeline as written now: %v", d)
			}

			// As a herd before wrote them: a's and c's rows an entry
			// each, b's as now.
			db, eng := events.SQLDB(log)
			d := eng.Dialect()
			all, err := view.Between(ctx, 0, 1<<62)
			if err != nil {
				t.Fatal(err)
			}
			rewrite := func(name string) {
				t.Helper()
				if _, err := db.ExecContext(ctx, d.Bind(`DELETE FROM node_timeline WHERE node = ?`), name); err != nil {
					t.Fatal(err)
				}
				seq := map[int64]int{}
				for _, en := range all {
					if en.Node != name {
						continue
					}
					if _, err := db.ExecContext(ctx, d.Bind(`INSERT INTO node_timeline (position, seq, node, at, kind, reason, message, type)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), en.Position, seq[en.Position], en.Node, en.At.UTC().Format(time.RFC3339Nano),
						en.Kind, en.Reason, en.Message, en.Type); err != nil {
						t.Fatal(err)
					}
					seq[en.Position]++
				}
			}
			rewrite("a")
			rewrite("c")
			var rows int
			if err := db.QueryRowContext(ctx, d.Bind(`SELECT count(*) FROM node_timeline WHERE node = ?`), "a").Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != len(now["a"]) {
				t.Fatalf("a's timeline rewritten as before is %d rows, want %d", rows, len(now["a"]))
			}
			if diff := cmp.Diff(now, readAll()); diff != "" {
				t.Errorf("the timeline as a herd before wrote it reads otherwise (-now +before):\n%s", diff)
			}
			if d := verify(); d != nil {
				t.Fatalf("verify of the timeline as a herd before wrote it: %v", d)
			}

			// A database of a herd from before more (its files up to
			// SQLite's 0025, PostgreSQL's 0014): every row an entry and no
			// column more, which the present migration adds to its
			// description; it reads and verifies clean.
			rewrite("b")
			retired := map[string]int{"sqlite": 26, "postgres": 15}[e.name]
			for _, stmt := range []string{`ALTER TABLE node_timeline DROP COLUMN more`,
				fmt.Sprintf(`DELETE FROM schema_migrations WHERE component = 'projections' AND version = %d`, retired)} {
				if _, err := db.ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			if err := Migrate(ctx, log); err != nil {
				t.Fatalf("the database from before more: %v", err)
			}
			var recorded int
			if err := db.QueryRowContext(ctx, d.Bind(`SELECT count(*) FROM schema_migrations WHERE component = 'projections' AND version = ?`), retired).Scan(&recorded); err != nil || recorded != 1 {
				t.Fatalf("the retired file %d recorded %d times after the upgrade: %v", retired, recorded, err)
			}
			if diff := cmp.Diff(now, readAll()); diff != "" {
				t.Errorf("the timeline of a database from before more reads otherwise (-now +before):\n%s", diff)
			}
			if d := verify(); d != nil {
				t.Fatalf("verify of a database from before more: %v", d)
			}

			// An entry a mark stands for, changed behind herd's back.
			last := now["a"][len(now["a"])-1]
			if _, err := db.ExecContext(ctx, d.Bind(`UPDATE node_timeline SET message = 'bogus' WHERE node = ? AND position = ? AND seq > 0`),
				"a", last.Position); err != nil {
				t.Fatal(err)
			}
			if d := verify(); d == nil || d.Table != "node_timeline" || !strings.Contains(d.Live, "bogus") {
				t.Fatalf("verify after an entry was changed behind herd's back: %v", d)
			}
		})
	}
}

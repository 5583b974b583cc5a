package projections

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections/viewstore"
)

// historyBefore is the views' migration files for engine ("sqlite" or
// "postgres") as they stood before the object model's kinds' tables were
// described once (testdata/history_before_described), those with a
// version below before only (all of them for 0).
func historyBefore(t *testing.T, engine string, before int64) fs.FS {
	t.Helper()
	dir := filepath.Join("testdata", "history_before_described", engine)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	for _, e := range entries {
		v, err := strconv.ParseInt(e.Name()[:4], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if before > 0 && v >= before {
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = &fstest.MapFile{Data: body}
	}
	return out
}

// anEngine is one engine's empty log, and the views' migration files of
// that engine applied by an older herd.
type anEngine struct {
	name string
	open func(t *testing.T) events.Log
	// migrate applies files as the views' migrations of an older herd.
	migrate func(ctx context.Context, db *sql.DB, files fs.FS) error
}

// openOlder is an empty log of this engine with the views' tables as an
// older herd made them with its files of a version below before, and
// the log's pool and engine.
func (e anEngine) openOlder(t *testing.T, before int64) (events.Log, *sql.DB, events.Engine) {
	t.Helper()
	log := e.open(t)
	db, engine := events.SQLDB(log)
	if err := e.migrate(t.Context(), db, historyBefore(t, e.name, before)); err != nil {
		t.Fatal(err)
	}
	return log, db, engine
}

var bothEngines = []anEngine{
	{"sqlite", func(t *testing.T) events.Log {
		store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		return store.Log()
	}, func(ctx context.Context, db *sql.DB, files fs.FS) error {
		return events.Migrate(ctx, db, "projections", files)
	}},
	{"postgres", func(t *testing.T) events.Log {
		return eventstest.OpenPostgres(t, pgtest.URL(t))
	}, func(ctx context.Context, db *sql.DB, files fs.FS) error {
		return events.MigratePostgres(ctx, db, "projections", files)
	}},
}

// tableShape is what the engine's catalog says of one table or view: its
// columns (name, type, nullability, default, collation, in order), its
// primary key, whether it keeps rowids (SQLite), its indexes (columns,
// collations, uniqueness, partial condition), and a view's query (the
// statement SQLite keeps, the query as PostgreSQL gives it back).
type tableShape struct {
	Columns []string
	Key     string
	Indexes []string
	Query   string
}

// describedNames names the described tables (describedTables), then the
// described views.
func describedNames() []string {
	var names []string
	for _, tb := range describedTables() {
		names = append(names, tb.Name)
	}
	for _, w := range viewstore.Views() {
		names = append(names, w.Name)
	}
	return names
}

var whereClause = regexp.MustCompile(`(?is)\bWHERE\b(.*)$`)

func tableShapeOf(t *testing.T, db *sql.DB, engine events.Engine, table string) tableShape {
	t.Helper()
	ctx := t.Context()
	var s tableShape
	if engine == events.EnginePostgres {
		s.Columns = strs(t, db, `SELECT column_name || ' ' || data_type || ' nullable=' || is_nullable ||
  ' default=' || COALESCE(column_default, '-') || ' collation=' || COALESCE(collation_name, '-')
FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
		keys := strs(t, db, `SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
WHERE conrelid = to_regclass($1) AND contype = 'p'`, table)
		s.Key = strings.Join(keys, "; ")
		s.Indexes = strs(t, db, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 ORDER BY indexname`, table)
		s.Query = strings.Join(strs(t, db, `SELECT pg_get_viewdef(c.oid) FROM pg_class c
WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = $1 AND c.relkind = 'v'`, table), "")
		return s
	}
	s.Query = strings.Join(strs(t, db, `SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = ?`, table), "")
	s.Columns = strs(t, db, `SELECT name || ' ' || type || ' notnull=' || "notnull" || ' default=' || COALESCE(dflt_value, '-') ||
  ' pk=' || pk FROM pragma_table_info(?) ORDER BY cid`, table)
	s.Key = strings.Join(strs(t, db, `SELECT 'without rowid=' || wr || ' strict=' || strict FROM pragma_table_list WHERE name = ?`, table), "")
	for _, ix := range strs(t, db, `SELECT name || ' unique=' || "unique" || ' origin=' || origin || ' partial=' || partial
FROM pragma_index_list(?) ORDER BY name`, table) {
		name, _, _ := strings.Cut(ix, " ")
		cols := strs(t, db, `SELECT COALESCE(name, '<expr>') || ' ' || coll || ' desc=' || desc FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno`, name)
		var where string
		var stmt sql.NullString
		if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`, name).Scan(&stmt); err != nil && err != sql.ErrNoRows {
			t.Fatal(err)
		}
		if m := whereClause.FindStringSubmatch(stmt.String); m != nil {
			where = " where " + strings.Join(strings.Fields(m[1]), " ")
		}
		s.Indexes = append(s.Indexes, ix+" ("+strings.Join(cols, ", ")+")"+where)
	}
	return s
}

func strs(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer func() { _ = rows.Close() }()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTheKindsTablesAreDescribed: the object model's kinds' tables are
// described (a new kind's jsonRows adds its own), then those of
// viewstore's own stores that the files made first.
func TestTheKindsTablesAreDescribed(t *testing.T) {
	var got []string
	for _, tb := range describedTables() {
		got = append(got, tb.Name)
	}
	want := []string{"configmaps", "controllerrevisions", "cronjobs", "daemonsets", "deployments", "jobs",
		"poddisruptionbudgets", "replicasets", "statefulsets",
		"pods", "namespaces", "device_bindings", "ip_pools", "ip_allocations", "fleet_health", "kubelet_targets",
		"leases", "projection_checkpoints", "nodes", "node_heartbeats", "node_timeline"}
	if !slices.Equal(got, want) {
		t.Errorf("described tables %v; want %v", got, want)
	}
}

// TestDescribedTablesAreTheTablesOfTheFilesBefore: on each engine, every
// described table made from its description has the columns, types,
// nullability, defaults, collations, primary key and indexes the
// engine's migration files made before it was described; and a database
// those files made opens with the present migration unchanged.
func TestDescribedTablesAreTheTablesOfTheFilesBefore(t *testing.T) {
	for _, e := range bothEngines {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			before := e.open(t)
			oldDB, engine := events.SQLDB(before)
			if err := e.migrate(ctx, oldDB, historyBefore(t, e.name, 0)); err != nil {
				t.Fatal(err)
			}
			now := e.open(t)
			if err := Migrate(ctx, now); err != nil {
				t.Fatal(err)
			}
			newDB, _ := events.SQLDB(now)
			// The descriptions alone, on a database no migration file ran on.
			bare, _ := events.SQLDB(e.open(t))
			if err := viewstore.NewDBOn(bare, engine.Dialect()).Ensure(ctx, describedTables(), viewstore.Views(), nil); err != nil {
				t.Fatal(err)
			}
			old := map[string]tableShape{}
			for _, name := range describedNames() {
				old[name] = tableShapeOf(t, oldDB, engine, name)
				if len(old[name].Columns) == 0 {
					t.Errorf("the files before did not make %s", name)
				}
				alone, present := tableShapeOf(t, bare, engine, name), tableShapeOf(t, newDB, engine, name)
				if diff := shapeDiff(e.name, name, old[name], alone); diff != "" {
					t.Errorf("%s from the files before (-) and from its description alone (+):\n%s", name, diff)
				}
				if diff := cmp.Diff(alone, present); diff != "" {
					t.Errorf("%s from its description alone (-) and from the present migration (+):\n%s", name, diff)
				}
			}
			// A herd from before opens a database this one made: the files
			// the descriptions replaced are recorded as applied.
			if err := e.migrate(ctx, newDB, historyBefore(t, e.name, 0)); err != nil {
				t.Fatalf("the files before over a database made from the descriptions: %v", err)
			}
			if err := Migrate(ctx, before); err != nil {
				t.Fatalf("a database the files before made: %v", err)
			}
			for _, name := range describedNames() {
				if diff := cmp.Diff(old[name], tableShapeOf(t, oldDB, engine, name)); diff != "" {
					t.Errorf("%s changed when an older herd's database opened:\n%s", name, diff)
				}
			}
		})
	}
}

// placedApart are the described tables whose columns the engine's files
// put in another order than their description, on every database of
// that engine made before the files were retired: PostgreSQL's first
// file made the leases' renewed_at before data, where SQLite's 0013
// added it after (the description's order, in which Ensure makes it on
// a new database of either engine). No statement of herd's depends on
// the order (none selects or inserts without naming its columns, and
// verify compares a table with a copy of itself), and a database keeps
// one order for its table; the rest of their shape is compared as it is.
var placedApart = map[string]map[string]bool{"postgres": {"leases": true}}

// shapeDiff is cmp.Diff of a and b, shapes of the table name on engine,
// their columns' order left out where the files placed them apart.
func shapeDiff(engine, name string, a, b tableShape) string {
	if placedApart[engine][name] {
		a.Columns = slices.Sorted(slices.Values(a.Columns))
		b.Columns = slices.Sorted(slices.Values(b.Columns))
	}
	return cmp.Diff(a, b)
}

// TestTheFirstFilesDatabaseUpgradesToTheDescribedTables: a database an
// older herd made with the first files only (SQLite's 0001–0006,
// PostgreSQL's 0001–0002), nodes, leases and timeline entries in it,
// opens with the present migration: the files left apply over it, the
// tables it lacked are made and the columns and indexes added, each
// table as a new database has it, its rows kept, the timeline's entries
// typed as SQLite's 0009 typed them; and the herd before opens it again.
func TestTheFirstFilesDatabaseUpgradesToTheDescribedTables(t *testing.T) {
	cut := map[string]int64{"sqlite": 7, "postgres": 3}
	for _, e := range bothEngines {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			older, db, engine := e.openOlder(t, cut[e.name])
			bind := engine.Dialect().Bind
			node := `INSERT INTO nodes (name, kind, deleted, agent_state, ready, registered_at, data) VALUES ('n1', 'Pi', 0, 'Running', 'True', 1, ?)`
			if e.name == "sqlite" {
				node = `INSERT INTO nodes (name, kind, deleted, version, resource_version, agent_state, ready, registered_at, last_heartbeat, data)
VALUES ('n1', 'Pi', 0, 1, 1, 'Running', 'True', 1, 1, ?)`
			} else if _, err := db.ExecContext(ctx, `INSERT INTO leases (namespace, name, version, resource_version, data) VALUES ('kube-node-lease', 'n1', 1, 1, '\x7b7d'::bytea)`); err != nil {
				t.Fatal(err)
			}
			// The node's JSON whole, as herd wrote it before the split.
			if _, err := db.ExecContext(ctx, bind(node), []byte(`{"name":"n1","drain":{},"version":3,"resourceVersion":7,"lastHeartbeat":"2026-01-01T00:00:05Z"}`)); err != nil {
				t.Fatal(err)
			}
			// The timeline as that herd wrote it, a row an entry: on SQLite
			// before entries had a type, which the upgrade gives them by
			// the rules of the timeline's types.
			entries := []struct{ kind, reason, message, want string }{
				{"Registered", "", "", "Normal"},
				{"HeartbeatMissed", "", "", "Warning"},
				{"ConditionChanged", "", "Ready True -> False", "Warning"},
				{"ConditionChanged", "", "Ready False -> True", "Normal"},
				{"ConditionChanged", "", "MemoryPressure False -> True", "Warning"},
				{"Tainted", "set by an operator", "", "Normal"},
				{"Tainted", "node not ready", "", "Warning"},
			}
			var want []string
			for i, en := range entries {
				if _, err := db.ExecContext(ctx, bind(`INSERT INTO node_timeline (position, seq, node, at, kind, reason, message) VALUES (?, 0, 'n1', '2026-01-01T00:00:00Z', ?, ?, ?)`),
					i+1, en.kind, en.reason, en.message); err != nil {
					t.Fatal(err)
				}
				if e.name == "sqlite" {
					want = append(want, en.kind+" "+en.message+": "+en.want)
				} else {
					want = append(want, en.kind+" "+en.message+": Normal") // born with the column, its default
				}
			}
			if err := Migrate(ctx, older); err != nil {
				t.Fatalf("the older database: %v", err)
			}
			got := strs(t, db, `SELECT kind || ' ' || message || ': ' || type FROM node_timeline ORDER BY position`)
			if !slices.Equal(got, want) {
				t.Errorf("the timeline's entries after the upgrade %q; want %q", got, want)
			}
			read, err := NewTimelineView(older).Node(ctx, "n1", 0, 0)
			if err != nil || len(read) != len(entries) {
				t.Errorf("n1's timeline after the upgrade: %+v, %v", read, err)
			}
			fresh := e.open(t)
			if err := Migrate(ctx, fresh); err != nil {
				t.Fatal(err)
			}
			freshDB, _ := events.SQLDB(fresh)
			for _, name := range describedNames() {
				if diff := shapeDiff(e.name, name, tableShapeOf(t, freshDB, engine, name), tableShapeOf(t, db, engine, name)); diff != "" {
					t.Errorf("%s new (-) and upgraded (+):\n%s", name, diff)
				}
			}
			if got, err := NewNodeView(older).Draining(ctx); err != nil || len(got) != 1 || got[0].Name != "n1" {
				t.Errorf("the draining nodes after the upgrade: %+v, %v", got, err)
			}
			// The split: the node's hot part in a row of its own, its cold
			// row without it, and the node read back as it was.
			heard := time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC)
			if e.name == "sqlite" {
				hot := strs(t, db, `SELECT CAST(last_heartbeat AS TEXT) || ' ' || CAST(data AS TEXT) FROM node_heartbeats WHERE name = 'n1'`)
				if want := fmt.Sprint(heard.UnixNano()) + ` {"version":3,"resourceVersion":7,"lastHeartbeat":"2026-01-01T00:00:05Z"}`; len(hot) != 1 || hot[0] != want {
					t.Errorf("n1's hot row after the upgrade %q; want %q", hot, want)
				}
				if cold := strs(t, db, `SELECT CAST(data AS TEXT) FROM nodes WHERE name = 'n1'`); len(cold) != 1 || strings.Contains(cold[0], "2026-01-01T00:00:05Z") {
					t.Errorf("n1's cold row after the upgrade %q still holds its heartbeat", cold)
				}
				if n, err := NewNodeView(older).Get(ctx, "n1"); err != nil || n.Version != 3 || n.ResourceVersion != 7 || !n.LastHeartbeat.Equal(heard) {
					t.Errorf("n1 after the upgrade: version %d, resourceVersion %d, last heartbeat %v, %v", n.Version, n.ResourceVersion, n.LastHeartbeat, err)
				}
			}
			if err := Migrate(ctx, older); err != nil {
				t.Fatalf("the upgraded database opened again: %v", err)
			}
			if err := e.migrate(ctx, db, historyBefore(t, e.name, 0)); err != nil {
				t.Fatalf("the upgraded database opened by the herd before: %v", err)
			}
		})
	}
}

// TestAnOlderDatabaseUpgradesToTheDescribedTables: a database an older
// herd made before pods and ReplicaSets kept their controller (SQLite's
// files up to 0018, PostgreSQL's up to 0007), with pods and ReplicaSets
// in it, opens with the present migration: the controller column is
// added to both and filled from each row's owners, its index made, the
// tables that herd lacked made and the columns and indexes it lacked
// added, each table as a new database has it; and opening it again
// changes nothing.
func TestAnOlderDatabaseUpgradesToTheDescribedTables(t *testing.T) {
	cut := map[string]int64{"sqlite": 19, "postgres": 8}
	for _, e := range bothEngines {
		t.Run(e.name, func(t *testing.T) {
			ctx := t.Context()
			older, db, engine := e.openOlder(t, cut[e.name])
			if got := tableShapeOf(t, db, engine, "cronjobs"); len(got.Columns) != 0 {
				t.Fatalf("the older database has cronjobs already: %v", got)
			}
			rows := map[string]string{
				"owned":  `{"namespace":"shop","name":"owned","owners":[{"kind":"Other","name":"x"},{"kind":"Deployment","name":"web","controller":true}]}`,
				"orphan": `{"namespace":"shop","name":"orphan","owners":[{"kind":"Deployment","name":"gone"}]}`,
				"plain":  `{"namespace":"shop","name":"plain"}`,
			}
			for name, data := range rows {
				if _, err := db.ExecContext(ctx, engine.Dialect().Bind(`INSERT INTO replicasets (namespace, name, version, resource_version, data) VALUES ('shop', ?, 1, 1, ?)`),
					name, []byte(data)); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, engine.Dialect().Bind(`INSERT INTO pods (namespace, name, uid, node_name, phase, terminating, finalized, source, version, resource_version, data)
VALUES ('shop', ?, ?, '', 'Pending', 0, 0, '', 1, 1, ?)`), name, "uid-"+name, []byte(data)); err != nil {
					t.Fatal(err)
				}
			}
			if err := Migrate(ctx, older); err != nil {
				t.Fatalf("the older database: %v", err)
			}
			for _, table := range []string{"replicasets", "pods"} {
				got := map[string]string{}
				for _, r := range strs(t, db, `SELECT name || '=' || controller FROM `+table) {
					name, ctl, _ := strings.Cut(r, "=")
					got[name] = ctl
				}
				if want := map[string]string{"owned": "Deployment/web", "orphan": "", "plain": ""}; !cmp.Equal(got, want) {
					t.Errorf("%s' controllers after the upgrade %v; want %v", table, got, want)
				}
			}
			fresh := e.open(t)
			if err := Migrate(ctx, fresh); err != nil {
				t.Fatal(err)
			}
			freshDB, _ := events.SQLDB(fresh)
			for _, name := range describedNames() {
				if diff := shapeDiff(e.name, name, tableShapeOf(t, freshDB, engine, name), tableShapeOf(t, db, engine, name)); diff != "" {
					t.Errorf("%s new (-) and upgraded (+):\n%s", name, diff)
				}
			}
			if err := Migrate(ctx, older); err != nil {
				t.Fatalf("the upgraded database opened again: %v", err)
			}
			if err := e.migrate(ctx, db, historyBefore(t, e.name, 0)); err != nil {
				t.Fatalf("the upgraded database opened by the herd before: %v", err)
			}
			rs, _, err := NewReplicaSetView(older).Controlled(ctx, "shop", []string{"Deployment/web"})
			if err != nil || len(rs) != 1 || rs[0].Name != "owned" {
				t.Errorf("shop's ReplicaSets of Deployment web after the upgrade: %+v, %v", rs, err)
			}
		})
	}
}

// TestMigrationFilesKeepTheHistory: no migration file of the views is
// left beside the package's code, as Migrate applies none: a database is
// made from the descriptions alone, and a new table, column, index or
// view is described, not written in a file. Every table and view the
// history's files made (testdata, as databases recorded them) is
// described, node_rows among them, so that no file's work went with it.
func TestMigrationFilesKeepTheHistory(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".sql") {
			t.Errorf("%s: the views are made from their descriptions alone (viewstore.Table, viewstore.View), and no file is applied", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	made := regexp.MustCompile(`(?i)\bCREATE\s+(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_]+)`)
	for _, engine := range []string{"sqlite", "postgres"} {
		history := historyBefore(t, engine, 0)
		names, err := fs.Glob(history, "*.sql")
		if err != nil || len(names) == 0 {
			t.Fatalf("%s's history: %v, %v", engine, names, err)
		}
		for _, n := range names {
			body, err := fs.ReadFile(history, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range made.FindAllSubmatch(body, -1) {
				if !slices.Contains(describedNames(), string(m[1])) {
					t.Errorf("%s %s makes %s, which no description says", engine, n, m[1])
				}
			}
		}
	}
}

// TestRetiredFilesAreThoseOfTheHistory: the files recorded as applied
// once the described tables are made are exactly the history's files,
// each with the checksum of its text.
func TestRetiredFilesAreThoseOfTheHistory(t *testing.T) {
	for engine, retired := range map[string][]events.RetiredMigration{"sqlite": retiredSQLite, "postgres": retiredPostgres} {
		old := historyBefore(t, engine, 0)
		oldNames, _ := fs.Glob(old, "*.sql")
		var want []events.RetiredMigration
		for _, n := range oldNames {
			body, _ := fs.ReadFile(old, n)
			v, _ := strconv.ParseInt(n[:4], 10, 64)
			want = append(want, events.RetiredMigration{Version: v, Name: n, Checksum: fmt.Sprintf("%x", sha256.Sum256(body))})
		}
		if diff := cmp.Diff(want, retired); diff != "" {
			t.Errorf("%s's retired files (-history +recorded):\n%s", engine, diff)
		}
	}
}

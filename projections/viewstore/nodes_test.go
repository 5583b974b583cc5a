package viewstore_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
	"herd/projections/viewstore"
)

// TestNodesContract: the node view's tables behave the same on a real
// SQLite file and a real PostgreSQL, through each engine's own
// implementation and through NewNodes: a node reads back as its cold
// JSON, a NUL byte and its hot JSON (none before its first hot row); an
// upsert of either row replaces it alone; lists leave deleted nodes out
// and pages keep them, in bytewise name order at the log's head; the
// reads into a node's JSON find a drain, a NoExecute effect, and a node
// whose condition taints need a look; a node's deadline is the later of
// its own heartbeat and its lease's renewal, a deleted lease and a
// stopped or deleted node left out, its registration time to the
// nanosecond.
func TestNodesContract(t *testing.T) {
	onEachEngineApart(t, viewstore.NewSQLiteNodes, viewstore.NewPostgresNodes, viewstore.NewNodes, nodeContract)
}

// node is a node's cold row: its JSON names it and holds extra.
func node(name, kind, agent, ready string, deleted bool, registered time.Time, extra string) viewstore.NodeRow {
	return viewstore.NodeRow{Name: name, Kind: kind, AgentState: agent, Ready: ready, Deleted: deleted, RegisteredAt: registered,
		Data: fmt.Appendf(nil, `{"name":%q%s}`, name, extra)}
}

// hot is a node's hot row, its JSON saying v.
func hot(name string, at time.Time, v int) viewstore.NodeHotRow {
	return viewstore.NodeHotRow{Name: name, LastHeartbeat: at, Data: fmt.Appendf(nil, `{"version":%d}`, v)}
}

// nodeNames are the names in the cold JSON of nodes' data that begin
// with prefix, never nil.
func nodeNames(t *testing.T, prefix string, data [][]byte) []string {
	t.Helper()
	out := []string{}
	for _, d := range data {
		cold, _, ok := bytes.Cut(d, []byte{0})
		if !ok {
			t.Errorf("node data %q has no NUL between its parts", d)
		}
		var n struct{ Name string }
		if err := json.Unmarshal(cold, &n); err != nil {
			t.Fatalf("node data %q: %v", d, err)
		}
		if strings.HasPrefix(n.Name, prefix) {
			out = append(out, n.Name)
		}
	}
	return out
}

// nodeContract runs the node view's contract on nodes and in a lease
// namespace that begin with prefix, so that runs on one database stay
// apart.
func nodeContract(t *testing.T, e engine, prefix string, nodes viewstore.Nodes) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	leaseNS := prefix + "node-lease"
	name := func(n string) string { return prefix + n }
	registered := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	beat := registered.Add(time.Minute)
	renewed := beat.Add(time.Minute)

	if _, err := nodes.Get(ctx, views, name("x")); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Get of a node never written: %v, want ErrNoRow", err)
	}

	write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.NodeRow{
			node(name("a.b"), "Linux", "Running", "True", false, registered, ""),
			node(name("a-z"), "Pico", "Running", "True", false, time.Time{}, ""),
			node(name("drain"), "Linux", "Running", "True", false, registered, `,"drain":{"requestedAt":"x"}`),
			node(name("noexec"), "Illumos", "Running", "True", false, registered, `,"taints":[{"key":"k","effect":"NoExecute"}]`),
			node(name("pressure"), "Linux", "Running", "True", false, registered, `,"conditions":[{"type":"MemoryPressure","status":"True"}]`),
			node(name("tainted"), "Linux", "Running", "True", false, registered, `,"taints":[{"key":"node.kubernetes.io/unreachable","effect":"NoSchedule"}]`),
			node(name("stopped"), "Linux", "Stopped", "Unknown", false, registered, ""),
			node(name("gone"), "Linux", "Running", "True", false, registered, `,"drain":{}`),
		} {
			if err := nodes.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %s: %v", r.Name, err)
			}
		}
		if err := nodes.UpsertHot(ctx, x, hot(name("a.b"), beat, 1)); err != nil {
			t.Fatal(err)
		}
		got, err := nodes.Get(ctx, x, name("a.b"))
		if want := `{"name":"` + name("a.b") + `"}` + "\x00" + `{"version":1}`; err != nil || string(got) != want {
			t.Errorf("Get inside the writing transaction: %q, %v; want %q", got, err, want)
		}
		for _, l := range []viewstore.Lease{
			{Row: obj(leaseNS, name("a.b"), false, 1), RenewedAt: renewed},
			{Row: obj(leaseNS, name("a-z"), true, 1), RenewedAt: renewed},
			{Row: obj(leaseNS, name("drain"), false, 1), RenewedAt: registered},
		} {
			if err := viewstore.NewLeases().Upsert(ctx, x, l); err != nil {
				t.Fatal(err)
			}
		}
	})
	head := write(t, e.log, func(x *events.ViewTx) {
		// A heartbeat rewrites the hot row alone; a transition both.
		if err := nodes.UpsertHot(ctx, x, hot(name("a.b"), beat, 2)); err != nil {
			t.Fatal(err)
		}
		if err := nodes.UpsertHot(ctx, x, hot(name("drain"), beat, 1)); err != nil {
			t.Fatal(err)
		}
		if err := nodes.Upsert(ctx, x, node(name("gone"), "Linux", "Running", "True", true, registered, `,"drain":{}`)); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range []struct{ name, want string }{
		{name("a.b"), `{"name":"` + name("a.b") + `"}` + "\x00" + `{"version":2}`},
		{name("a-z"), `{"name":"` + name("a-z") + `"}` + "\x00"},
		{name("gone"), `{"name":"` + name("gone") + `","drain":{}}` + "\x00"},
	} {
		if got, err := nodes.Get(ctx, views, c.name); err != nil || string(got) != c.want {
			t.Errorf("Get %s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}

	live := []string{name("a-z"), name("a.b"), name("drain"), name("noexec"), name("pressure"), name("stopped"), name("tainted")}
	list, h, err := nodes.List(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(live, nodeNames(t, prefix, list)); diff != "" || h != head {
		t.Errorf("List at %d, head %d (-want +got):\n%s", h, head, diff)
	}
	pages := []struct {
		after string
		limit int
		want  []string
	}{
		{prefix, 0, []string{name("a-z"), name("a.b"), name("drain"), name("gone"), name("noexec"), name("pressure"), name("stopped"), name("tainted")}},
		{prefix, 2, []string{name("a-z"), name("a.b")}},
		{name("drain"), 2, []string{name("gone"), name("noexec")}},
		{name("tainted"), 1, []string{}},
	}
	for _, p := range pages {
		got, h, err := nodes.After(ctx, views, p.after, p.limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(p.want, nodeNames(t, prefix, got)); diff != "" || h != head {
			t.Errorf("After(%q, %d) at %d, head %d (-want +got):\n%s", p.after, p.limit, h, head, diff)
		}
	}

	namesOf := []struct {
		what string
		read func() ([]string, error)
		want []string
	}{
		{"Names", func() ([]string, error) { return nodes.Names(ctx, views) }, live},
		{"NamesOfKinds", func() ([]string, error) { return nodes.NamesOfKinds(ctx, views, []string{"Pico", "Illumos"}) }, []string{name("a-z"), name("noexec")}},
		{"NamesOfKinds of none", func() ([]string, error) { return nodes.NamesOfKinds(ctx, views, nil) }, []string{}},
		{"NamesWithNoExecute", func() ([]string, error) { return nodes.NamesWithNoExecute(ctx, views) }, []string{name("noexec")}},
		{"NamesNeedingTaintCheck", func() ([]string, error) { return nodes.NamesNeedingTaintCheck(ctx, views) }, []string{name("pressure"), name("stopped"), name("tainted")}},
	}
	for _, c := range namesOf {
		got, err := c.read()
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if diff := cmp.Diff(c.want, oursOf(prefix, got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
	draining, err := nodes.Draining(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{name("drain")}, nodeNames(t, prefix, draining)); diff != "" {
		t.Errorf("Draining (-want +got):\n%s", diff)
	}
	for _, d := range draining {
		if strings.Contains(string(d), name("drain")) && !bytes.HasSuffix(d, []byte("\x00"+`{"version":1}`)) {
			t.Errorf("Draining's node without its hot row: %q", d)
		}
	}

	deadlines, err := nodes.Deadlines(ctx, views, leaseNS)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]viewstore.NodeDeadline{}
	for _, d := range deadlines {
		if strings.HasPrefix(d.Name, prefix) {
			got[d.Name] = d
		}
	}
	at := func(n string, last, reg time.Time) viewstore.NodeDeadline {
		return viewstore.NodeDeadline{Name: name(n), Ready: "True", LastHeard: last, RegisteredAt: reg}
	}
	want := map[string]viewstore.NodeDeadline{
		// Renewed after its heartbeat: the renewal.
		name("a.b"): at("a.b", renewed, registered),
		// Its lease deleted, no heartbeat, never registered: all zero.
		name("a-z"): at("a-z", time.Time{}, time.Time{}),
		// Renewed before its heartbeat: the heartbeat.
		name("drain"):    at("drain", beat, registered),
		name("noexec"):   at("noexec", time.Time{}, registered),
		name("pressure"): at("pressure", time.Time{}, registered),
		name("tainted"):  at("tainted", time.Time{}, registered),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Deadlines (-want +got):\n%s", diff)
	}
}

// TestNodeReadsAreAnsweredFromTheirPartialIndexes: each of the node
// view's reads into a node's JSON repeats its partial index's condition
// as the engine's migration wrote it (events.Dialect.ContainsBytes), so
// that the engine plans it through that index, not through every node.
func TestNodeReadsAreAnsweredFromTheirPartialIndexes(t *testing.T) {
	for _, open := range []func(*testing.T) engine{openSQLite, openPostgres} {
		e := open(t)
		t.Run(e.name, func(t *testing.T) {
			db, eng := events.SQLDB(e.log)
			for _, q := range viewstore.NodeIndexedReads(eng.Dialect()) {
				if plan := queryPlan(t.Context(), t, db, eng, q.SQL); !strings.Contains(plan, q.Index) {
					t.Errorf("%s on %s is not planned through %s:\n%s", q.Method, eng, q.Index, plan)
				}
			}
		})
	}
}

// queryPlan is the engine's plan for q, one step a line: SQLite's
// EXPLAIN QUERY PLAN, or PostgreSQL's EXPLAIN with sequential scans
// priced out, as a table with no statistics would otherwise be read
// whole whatever its indexes.
func queryPlan(ctx context.Context, t *testing.T, db *sql.DB, engine events.Engine, q string) string {
	t.Helper()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	explain := "EXPLAIN QUERY PLAN "
	if engine == events.EnginePostgres {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		explain = "EXPLAIN "
	}
	rows, err := tx.QueryContext(ctx, explain+q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var b strings.Builder
	for _, step := range eventstest.Column(t, rows, -1) {
		fmt.Fprintf(&b, "%s\n", step)
	}
	return b.String()
}

package viewstore

import (
	"context"
	"fmt"
	"time"

	"herd/events"
)

// NodeRow is a node's cold row in the node view (nodes): what changes on
// a transition — its name, kind, tombstone flag, agent state, Ready
// status and registration time beside its JSON without the hot part.
type NodeRow struct {
	Name, Kind, AgentState, Ready string
	Deleted                       bool
	// RegisteredAt reads back, through NodeDeadline, to the nanosecond;
	// the zero time is kept as never.
	RegisteredAt time.Time
	Data         []byte
}

// NodeHotRow is a node's hot row (node_heartbeats): what a plain
// heartbeat changes — its last heartbeat beside the JSON of its version,
// resourceVersion, figures and conditions' heartbeat times. A prepared
// write finds the placeholder of its resourceVersion in Data, so Data is
// handed to the statement as it is.
type NodeHotRow struct {
	Name          string
	LastHeartbeat time.Time
	Data          []byte
}

// NodeDeadline is what a node's health rules need of one node, from
// columns only: its Ready status, when herd last heard from it (the later
// of its own last report and its lease's last renewal; zero for never),
// and when it registered.
type NodeDeadline struct {
	Name, Ready             string
	LastHeard, RegisteredAt time.Time
}

// Nodes is the node view's tables — a node's cold row and its hot row,
// read together as one (the view node_rows: the cold JSON, a NUL byte,
// the hot JSON, none for a row written before the split) — on one engine
// or on whichever a handle is of (NewNodes). A node's rows are never
// deleted: a deleted node is a tombstone until a rebuild. Reads at head
// are as Store's.
type Nodes interface {
	// Upsert writes a node's cold row, in place of the one at its name.
	Upsert(ctx context.Context, x Execer, r NodeRow) error
	// UpsertHot writes a node's hot row, in place of the one at its name:
	// all a plain heartbeat writes.
	UpsertHot(ctx context.Context, x Execer, r NodeHotRow) error
	// Get is the node's data as node_rows reads it, tombstone or not, or
	// ErrNoRow.
	Get(ctx context.Context, q Querier, name string) ([]byte, error)
	// List is the data of every node not deleted, in name order, at head.
	List(ctx context.Context, q Querier) ([][]byte, int64, error)
	// After is the data of up to limit nodes whose names sort after
	// after, in name order (bytewise), tombstones included, at head;
	// limit 0 or less means all of them.
	After(ctx context.Context, q Querier, after string, limit int) ([][]byte, int64, error)
	// Names names every node not deleted, in order.
	Names(ctx context.Context, q Querier) ([]string, error)
	// NamesOfKinds names the nodes not deleted of one of kinds, in
	// order, from the kind column; no kinds names none.
	NamesOfKinds(ctx context.Context, q Querier, kinds []string) ([]string, error)
	// Draining is the data of the nodes not deleted whose JSON holds a
	// drain (done or not: the caller tells), in name order, through the
	// nodes_with_drain index.
	Draining(ctx context.Context, q Querier) ([][]byte, error)
	// NamesWithNoExecute names the nodes not deleted whose JSON mentions
	// a NoExecute effect, in order, from the nodes_with_no_execute index
	// alone: a node whose JSON mentions it elsewhere is named too.
	NamesWithNoExecute(ctx context.Context, q Querier) ([]string, error)
	// NamesNeedingTaintCheck names the nodes not deleted whose Ready
	// status is not True, or whose JSON holds a node.kubernetes.io key
	// or a pressure condition True, in order, from the
	// nodes_needing_taint_check index alone.
	NamesNeedingTaintCheck(ctx context.Context, q Querier) ([]string, error)
	// Deadlines is every node expected to report — not deleted, its
	// agent not Stopped — with the renewal of its lease in namespace
	// leases (the lease view's renewed_at, when the lease is not
	// deleted), in no order.
	Deadlines(ctx context.Context, q Querier, leases string) ([]NodeDeadline, error)
}

// The node view's statements, with "?" markers. The upserts keep their
// text whatever the engine: the unit of work prepares them once, and a
// rebuild gathers them into many-row inserts.
const (
	nodeUpsertSQL = `INSERT INTO nodes (name, kind, deleted, agent_state, ready, registered_at, data)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, deleted = excluded.deleted,
  agent_state = excluded.agent_state, ready = excluded.ready,
  registered_at = excluded.registered_at, data = excluded.data`
	nodeUpsertHotSQL = `INSERT INTO node_heartbeats (name, last_heartbeat, data) VALUES (?, ?, ?)
ON CONFLICT (name) DO UPDATE SET last_heartbeat = excluded.last_heartbeat, data = excluded.data`
	nodeGetSQL   = `SELECT data FROM node_rows WHERE name = ?`
	nodeListFrom = `node_rows r ON r.deleted = 0 ORDER BY r.name`
	nodeAfter    = `(SELECT name, data FROM node_rows WHERE name > ? ORDER BY name LIMIT ?) r ON true ORDER BY r.name`
	nodeNamesSQL = `SELECT name FROM nodes WHERE deleted = 0 ORDER BY name`
)

// The substrings of a node's cold JSON that the partial indexes of the
// nodes table's description (Tables) test for, and that the reads
// answered from those indexes repeat.
const (
	nodeDrainText     = `"drain":{`
	nodeNoExecuteText = `"effect":"NoExecute"`
	nodeTaintKeyText  = `"key":"node.kubernetes.io/`
	nodePressureText  = `Pressure","status":"True"`
)

// The node view's reads that look into a node's JSON, in dialect d: each
// repeats the WHERE clause of a partial index of the nodes table's
// description word for word (events.Dialect.ContainsBytes writes both),
// as both SQLite and PostgreSQL use a partial index only for a query
// whose WHERE contains its own.

// nodeDrainingSQL selects the data of the nodes with a drain, their hot
// row's after a 0 byte, as node_rows does.
func nodeDrainingSQL(d events.Dialect) string {
	return `SELECT n.data || ` + d.Bytes([]byte{0}) + ` || COALESCE(h.data, ` + d.Bytes(nil) + `) FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name
WHERE ` + d.ContainsBytes("n.data", nodeDrainText) + ` AND n.deleted = 0 ORDER BY n.name`
}

// nodeNoExecuteSQL names the nodes whose data has a NoExecute effect.
func nodeNoExecuteSQL(d events.Dialect) string {
	return `SELECT name FROM nodes
WHERE ` + d.ContainsBytes("data", nodeNoExecuteText) + ` AND deleted = 0 ORDER BY name`
}

// nodeTaintCheckSQL names the nodes not Ready, or with a
// node.kubernetes.io taint, or a pressure condition True.
func nodeTaintCheckSQL(d events.Dialect) string {
	return `SELECT name FROM nodes
WHERE deleted = 0 AND (ready <> 'True'
        OR ` + d.ContainsBytes("data", nodeTaintKeyText) + `
        OR ` + d.ContainsBytes("data", nodePressureText) + `) ORDER BY name`
}

// nodeDeadlinesSQL is Deadlines' query in dialect d: the later of a
// node's own report and its lease's renewal. Its argument is the leases'
// namespace.
func nodeDeadlinesSQL(d events.Dialect) string {
	return `SELECT n.name, n.ready,
  ` + d.Greatest("n.last_heartbeat", "COALESCE(l.renewed_at, 0)") + `, n.registered_at FROM node_rows n
LEFT JOIN leases l ON l.namespace = ? AND l.name = n.name AND l.deleted = 0
WHERE n.deleted = 0 AND n.agent_state <> 'Stopped'`
}

// nodeKindsSQL names the nodes of one of n kinds.
func nodeKindsSQL(n int) string {
	return `SELECT name FROM nodes WHERE deleted = 0 AND kind IN (` + markers(n) + `) ORDER BY name`
}

// nodeStore is the node view in one engine, shaped by its dialect as
// objectStore is.
type nodeStore struct {
	d events.Dialect
	// get, list, after, names, draining, noExecute, taintCheck and
	// deadlines are the reads, bound to the engine.
	get, list, after, names, draining, noExecute, taintCheck, deadlines string
}

// NewSQLiteNodes is the node view in SQLite.
func NewSQLiteNodes() Nodes { return newNodeStore(events.EngineSQLite.Dialect()) }

// NewPostgresNodes is the node view in PostgreSQL.
func NewPostgresNodes() Nodes { return newNodeStore(events.EnginePostgres.Dialect()) }

func newNodeStore(d events.Dialect) *nodeStore {
	return &nodeStore{
		d:          d,
		get:        d.Bind(nodeGetSQL),
		list:       d.Bind(d.AtHead(nodeListFrom)),
		after:      d.Bind(d.AtHead(nodeAfter)),
		names:      d.Bind(nodeNamesSQL),
		draining:   d.Bind(nodeDrainingSQL(d)),
		noExecute:  d.Bind(nodeNoExecuteSQL(d)),
		taintCheck: d.Bind(nodeTaintCheckSQL(d)),
		deadlines:  d.Bind(nodeDeadlinesSQL(d)),
	}
}

func (s *nodeStore) Upsert(ctx context.Context, x Execer, r NodeRow) error {
	return exec(ctx, x, "nodes", nodeUpsertSQL, s.d.Args([]any{r.Name, r.Kind, r.Deleted, r.AgentState, r.Ready, unixNanos(r.RegisteredAt), r.Data})...)
}

func (s *nodeStore) UpsertHot(ctx context.Context, x Execer, r NodeHotRow) error {
	return exec(ctx, x, "node_heartbeats", nodeUpsertHotSQL, r.Name, unixNanos(r.LastHeartbeat), r.Data)
}

func (s *nodeStore) Get(ctx context.Context, q Querier, name string) ([]byte, error) {
	return getData(ctx, q, "node_rows", s.get, name)
}

func (s *nodeStore) List(ctx context.Context, q Querier) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.list)
}

func (s *nodeStore) After(ctx context.Context, q Querier, after string, limit int) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.after, s.d.Args([]any{after, events.LimitOf(limit)})...)
}

func (s *nodeStore) Names(ctx context.Context, q Querier) ([]string, error) {
	return allNames(ctx, q, "node names", s.names)
}

func (s *nodeStore) NamesOfKinds(ctx context.Context, q Querier, kinds []string) ([]string, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	args := make([]any, len(kinds))
	for i, k := range kinds {
		args[i] = k
	}
	return allNames(ctx, q, "node names by kind", s.d.Bind(nodeKindsSQL(len(kinds))), args...)
}

func (s *nodeStore) Draining(ctx context.Context, q Querier) ([][]byte, error) {
	return allData(ctx, q, "draining nodes", s.draining)
}

func (s *nodeStore) NamesWithNoExecute(ctx context.Context, q Querier) ([]string, error) {
	return allNames(ctx, q, "nodes with NoExecute taints", s.noExecute)
}

func (s *nodeStore) NamesNeedingTaintCheck(ctx context.Context, q Querier) ([]string, error) {
	return allNames(ctx, q, "nodes needing a taint check", s.taintCheck)
}

func (s *nodeStore) Deadlines(ctx context.Context, q Querier, leases string) ([]NodeDeadline, error) {
	rows, err := q.QueryContext(ctx, s.deadlines, leases)
	if err != nil {
		return nil, fmt.Errorf("node deadlines: %w", err)
	}
	defer rows.Close()
	var out []NodeDeadline
	for rows.Next() {
		var (
			d       NodeDeadline
			hb, reg int64
		)
		if err := rows.Scan(&d.Name, &d.Ready, &hb, &reg); err != nil {
			return nil, fmt.Errorf("node deadlines: %w", err)
		}
		d.LastHeard, d.RegisteredAt = fromUnixNanos(hb), fromUnixNanos(reg)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("node deadlines: %w", err)
	}
	return out, nil
}

// NewNodes is the node view on whichever engine each handle it is given
// is of, as New is for an object table.
func NewNodes() Nodes {
	return nodeEngines{byEngine[Nodes]{sqlite: NewSQLiteNodes(), postgres: NewPostgresNodes()}}
}

// nodeEngines picks the node view of a handle's engine.
type nodeEngines struct{ byEngine[Nodes] }

func (e nodeEngines) Upsert(ctx context.Context, x Execer, r NodeRow) error {
	return run(e.byEngine, x, func(s Nodes) error { return s.Upsert(ctx, x, r) })
}

func (e nodeEngines) UpsertHot(ctx context.Context, x Execer, r NodeHotRow) error {
	return run(e.byEngine, x, func(s Nodes) error { return s.UpsertHot(ctx, x, r) })
}

func (e nodeEngines) Get(ctx context.Context, q Querier, name string) ([]byte, error) {
	return get(e.byEngine, q, func(s Nodes) ([]byte, error) { return s.Get(ctx, q, name) })
}

func (e nodeEngines) List(ctx context.Context, q Querier) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Nodes) ([][]byte, int64, error) { return s.List(ctx, q) })
}

func (e nodeEngines) After(ctx context.Context, q Querier, after string, limit int) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Nodes) ([][]byte, int64, error) { return s.After(ctx, q, after, limit) })
}

func (e nodeEngines) Names(ctx context.Context, q Querier) ([]string, error) {
	return get(e.byEngine, q, func(s Nodes) ([]string, error) { return s.Names(ctx, q) })
}

func (e nodeEngines) NamesOfKinds(ctx context.Context, q Querier, kinds []string) ([]string, error) {
	return get(e.byEngine, q, func(s Nodes) ([]string, error) { return s.NamesOfKinds(ctx, q, kinds) })
}

func (e nodeEngines) Draining(ctx context.Context, q Querier) ([][]byte, error) {
	return get(e.byEngine, q, func(s Nodes) ([][]byte, error) { return s.Draining(ctx, q) })
}

func (e nodeEngines) NamesWithNoExecute(ctx context.Context, q Querier) ([]string, error) {
	return get(e.byEngine, q, func(s Nodes) ([]string, error) { return s.NamesWithNoExecute(ctx, q) })
}

func (e nodeEngines) NamesNeedingTaintCheck(ctx context.Context, q Querier) ([]string, error) {
	return get(e.byEngine, q, func(s Nodes) ([]string, error) { return s.NamesNeedingTaintCheck(ctx, q) })
}

func (e nodeEngines) Deadlines(ctx context.Context, q Querier, leases string) ([]NodeDeadline, error) {
	return get(e.byEngine, q, func(s Nodes) ([]NodeDeadline, error) { return s.Deadlines(ctx, q, leases) })
}

package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
)

// The node view's queries that look into a node's data (a drain under
// way, a NoExecute taint, a condition taint), in dialect d: each repeats
// the WHERE clause of a partial index of its engine's migrations word for
// word (events.Dialect.ContainsBytes writes it as they do), as both
// SQLite and PostgreSQL use a partial index only for a query whose WHERE
// contains its own.

// drainingSQL selects the data of the nodes with a drain, their hot
// row's after a 0 byte.
func drainingSQL(d events.Dialect) string {
	return `SELECT n.data || ` + d.Bytes([]byte{0}) + ` || COALESCE(h.data, ` + d.Bytes(nil) + `) FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name
WHERE ` + d.ContainsBytes("n.data", `"drain":{`) + ` AND n.deleted = 0 ORDER BY n.name`
}

// noExecuteSQL names the nodes whose data has a NoExecute effect.
func noExecuteSQL(d events.Dialect) string {
	return `SELECT name FROM nodes
WHERE ` + d.ContainsBytes("data", `"effect":"NoExecute"`) + ` AND deleted = 0 ORDER BY name`
}

// taintCheckSQL names the nodes not Ready, or with a node.kubernetes.io
// taint, or a pressure condition True.
func taintCheckSQL(d events.Dialect) string {
	return `SELECT name FROM nodes
WHERE deleted = 0 AND (ready <> 'True'
        OR ` + d.ContainsBytes("data", `"key":"node.kubernetes.io/`) + `
        OR ` + d.ContainsBytes("data", `Pressure","status":"True"`) + `) ORDER BY name`
}

// Draining returns the nodes being drained (a drain requested and not yet
// done), in name order. It reads only the nodes that have a drain, through
// the nodes_with_drain index.
func (v *NodeView) Draining(ctx context.Context) ([]domain.Node, error) {
	rows, err := v.db.QueryContext(ctx, drainingSQL(v.db.d))
	if err != nil {
		return nil, fmt.Errorf("draining nodes: %w", err)
	}
	defer rows.Close()
	var out []domain.Node
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, fmt.Errorf("draining nodes: %w", err)
		}
		n, err := unmarshalNode(data)
		if err != nil {
			return nil, err
		}
		if n.Drain != nil && n.Drain.DrainedAt.IsZero() {
			out = append(out, n)
		}
	}
	return out, rows.Err()
}

// NamesWithNoExecute names the nodes that may carry a NoExecute taint, in
// name order, from the nodes_with_no_execute index alone. It may name a
// node whose JSON mentions the effect elsewhere; callers check the node.
func (v *NodeView) NamesWithNoExecute(ctx context.Context) ([]string, error) {
	return queryNames(ctx, v.db, "nodes with NoExecute taints", noExecuteSQL(v.db.d))
}

// NamesNeedingTaintCheck names the nodes whose condition taints may not
// follow their conditions: Ready not True, a condition taint on, or a
// pressure condition True. A node outside it has no condition taint and
// needs none. It reads the nodes_needing_taint_check index alone.
func (v *NodeView) NamesNeedingTaintCheck(ctx context.Context) ([]string, error) {
	return queryNames(ctx, v.db, "nodes needing a taint check", taintCheckSQL(v.db.d))
}

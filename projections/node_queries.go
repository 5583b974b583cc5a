package projections

import (
	"context"
	"fmt"

	"herd/domain"
)

// nodeQueries are the node view's queries that look into a node's data
// (a drain under way, a NoExecute taint, a condition taint), named once
// per engine: each repeats the WHERE clause of a partial index of its
// engine's migrations word for word, as both SQLite and PostgreSQL use a
// partial index only for a query whose WHERE contains its own.
type nodeQueries struct{ draining, noExecute, taintCheck string }

var nodeSQL = map[string]nodeQueries{
	sqliteDialect.name: {
		draining: `SELECT n.data || x'00' || COALESCE(h.data, x'') FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name
WHERE instr(CAST(n.data AS TEXT), '"drain":{') > 0 AND n.deleted = 0 ORDER BY n.name`,
		noExecute: `SELECT name FROM nodes
WHERE instr(CAST(data AS TEXT), '"effect":"NoExecute"') > 0 AND deleted = 0 ORDER BY name`,
		taintCheck: `SELECT name FROM nodes
WHERE deleted = 0 AND (ready <> 'True'
        OR instr(CAST(data AS TEXT), '"key":"node.kubernetes.io/') > 0
        OR instr(CAST(data AS TEXT), 'Pressure","status":"True"') > 0) ORDER BY name`,
	},
	postgresDialect.name: {
		draining: `SELECT n.data || '\x00'::bytea || COALESCE(h.data, ''::bytea) FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name
WHERE position('"drain":{'::bytea IN n.data) > 0 AND n.deleted = 0 ORDER BY n.name`,
		noExecute: `SELECT name FROM nodes
WHERE position('"effect":"NoExecute"'::bytea IN data) > 0 AND deleted = 0 ORDER BY name`,
		taintCheck: `SELECT name FROM nodes
WHERE deleted = 0 AND (ready <> 'True'
        OR position('"key":"node.kubernetes.io/'::bytea IN data) > 0
        OR position('Pressure","status":"True"'::bytea IN data) > 0) ORDER BY name`,
	},
}

// Draining returns the nodes being drained (a drain requested and not yet
// done), in name order. It reads only the nodes that have a drain, through
// the nodes_with_drain index.
func (v *NodeView) Draining(ctx context.Context) ([]domain.Node, error) {
	rows, err := v.db.QueryContext(ctx, nodeSQL[v.db.d.name].draining)
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
	return queryNames(ctx, v.db, "nodes with NoExecute taints", nodeSQL[v.db.d.name].noExecute)
}

// NamesNeedingTaintCheck names the nodes whose condition taints may not
// follow their conditions: Ready not True, a condition taint on, or a
// pressure condition True. A node outside it has no condition taint and
// needs none. It reads the nodes_needing_taint_check index alone.
func (v *NodeView) NamesNeedingTaintCheck(ctx context.Context) ([]string, error) {
	return queryNames(ctx, v.db, "nodes needing a taint check", nodeSQL[v.db.d.name].taintCheck)
}

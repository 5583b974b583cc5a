package projections

import (
	"context"
	"fmt"

	"herd/domain"
)

// drainingSQL and noExecuteSQL repeat the WHERE clauses of the partial
// indexes nodes_with_drain and nodes_with_no_execute word for word: SQLite
// uses a partial index only for a query whose WHERE contains its own.
const (
	drainingSQL = `SELECT n.data || x'00' || COALESCE(h.data, x'') FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name
WHERE instr(CAST(n.data AS TEXT), '"drain":{') > 0 AND n.deleted = 0 ORDER BY n.name`
	noExecuteSQL = `SELECT name FROM nodes
WHERE instr(CAST(data AS TEXT), '"effect":"NoExecute"') > 0 AND deleted = 0 ORDER BY name`
)

// Draining returns the nodes being drained (a drain requested and not yet
// done), in name order. It reads only the nodes that have a drain, through
// the nodes_with_drain index.
func (v *NodeView) Draining(ctx context.Context) ([]domain.Node, error) {
	rows, err := v.db.QueryContext(ctx, drainingSQL)
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
	return queryNames(ctx, v.db, "nodes with NoExecute taints", noExecuteSQL)
}

// taintCheckSQL repeats the WHERE clause of the partial index
// nodes_needing_taint_check word for word.
const taintCheckSQL = `SELECT name FROM nodes
WHERE deleted = 0 AND (ready <> 'True'
        OR instr(CAST(data AS TEXT), '"key":"node.kubernetes.io/') > 0
        OR instr(CAST(data AS TEXT), 'Pressure","status":"True"') > 0) ORDER BY name`

// NamesNeedingTaintCheck names the nodes whose condition taints may not
// follow their conditions: Ready not True, a condition taint on, or a
// pressure condition True. A node outside it has no condition taint and
// needs none. It reads the nodes_needing_taint_check index alone.
func (v *NodeView) NamesNeedingTaintCheck(ctx context.Context) ([]string, error) {
	return queryNames(ctx, v.db, "nodes needing a taint check", taintCheckSQL)
}

package projections

import (
	"context"
	"fmt"
	"time"
)

// StaleNodes returns the nodes whose deadline has passed at now and that
// are not yet marked: registered, not stopped or deleted, Ready not
// Unknown, and either their last heartbeat is older than grace or, never
// having reported, their registration is older than startupGrace. It scans
// integer columns only, so checking ten thousand nodes stays cheap.
func (v *NodeView) StaleNodes(ctx context.Context, now time.Time, grace, startupGrace time.Duration) ([]string, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT name FROM nodes
WHERE deleted = 0 AND agent_state <> 'Stopped' AND ready <> 'Unknown'
  AND ((last_heartbeat > 0 AND last_heartbeat < ?) OR (last_heartbeat = 0 AND registered_at < ?))
ORDER BY name`, now.Add(-grace).UnixNano(), now.Add(-startupGrace).UnixNano())
	if err != nil {
		return nil, fmt.Errorf("stale nodes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("stale nodes: %w", err)
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// Reachability counts the nodes expected to report (registered, not
// stopped or deleted) and those among them whose Ready is Unknown.
func (v *NodeView) Reachability(ctx context.Context) (unreachable, total int, err error) {
	err = v.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(ready = 'Unknown'), 0) FROM nodes
WHERE deleted = 0 AND agent_state <> 'Stopped'`).Scan(&total, &unreachable)
	if err != nil {
		return 0, 0, fmt.Errorf("reachability: %w", err)
	}
	return unreachable, total, nil
}

// Names returns every node's name, in order.
func (v *NodeView) Names(ctx context.Context) ([]string, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT name FROM nodes WHERE deleted = 0 ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("node names: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("node names: %w", err)
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

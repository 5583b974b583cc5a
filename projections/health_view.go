package projections

import (
	"context"
	"fmt"
	"time"

	"herd/domain"
)

// NodeDeadline is what the fleet disruption rule needs of one node.
type NodeDeadline struct {
	Name          string
	Ready         domain.ConditionStatus
	LastHeartbeat time.Time // zero when the node never reported
	RegisteredAt  time.Time
}

// NodeDeadlines returns the nodes expected to report (registered, not
// stopped or deleted) with their Ready status and times, from columns only.
// The health rules read it once to start counting the fleet and keeping
// the deadlines in memory, and once per full resync, never per node.
func (v *NodeView) NodeDeadlines(ctx context.Context) ([]NodeDeadline, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT name, ready, last_heartbeat, registered_at FROM node_rows
WHERE deleted = 0 AND agent_state <> 'Stopped'`)
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
		d.LastHeartbeat, d.RegisteredAt = fromUnixNanos(hb), fromUnixNanos(reg)
		out = append(out, d)
	}
	return out, rows.Err()
}

// fromUnixNanos undoes unixNanos: 0 is the zero time.
func fromUnixNanos(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// Names returns every node's name, in order.
func (v *NodeView) Names(ctx context.Context) ([]string, error) {
	return queryNames(ctx, v.db, "node names", `SELECT name FROM nodes WHERE deleted = 0 ORDER BY name`)
}

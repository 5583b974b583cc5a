package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"herd/domain"
	"herd/events"
)

// NodeDeadline is what the fleet disruption rule needs of one node.
type NodeDeadline struct {
	Name  string
	Ready domain.ConditionStatus
	// LastHeartbeat is when herd last heard from the node: its own last
	// report or its lease's last renewal, whichever is later
	// (domain.LastHeard); zero when it never did.
	LastHeartbeat time.Time
	RegisteredAt  time.Time
}

// NodeDeadlines returns the nodes expected to report (registered, not
// stopped or deleted) with their Ready status and times, from columns only.
// The health rules read it once to start counting the fleet and keeping
// the deadlines in memory, and once per full resync, never per node.
func (v *NodeView) NodeDeadlines(ctx context.Context) ([]NodeDeadline, error) {
	rows, err := v.db.QueryContext(ctx, nodeDeadlinesSQL(v.db.d))
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

// nodeDeadlinesSQL is NodeDeadlines' query in dialect d: the later of a
// node's own report and its lease's renewal.
func nodeDeadlinesSQL(d events.Dialect) string {
	return `SELECT n.name, n.ready,
  ` + d.Greatest("n.last_heartbeat", "COALESCE(l.renewed_at, 0)") + `, n.registered_at FROM node_rows n
LEFT JOIN leases l ON l.namespace = '` + domain.NodeLeaseNamespace + `' AND l.name = n.name AND l.deleted = 0
WHERE n.deleted = 0 AND n.agent_state <> 'Stopped'`
}

// NodeLeaseRenewedAt returns when node name's lease in kube-node-lease
// was last renewed, by herd's clock: zero when the node has no lease.
// A view that remembers (Remembering) answers from the lease as herd
// last committed it when it holds it: the health rules ask for a node's
// lease as the node registers and renews. A lease it knows was never
// written (a node registering before its kubelet stores its lease) reads
// no row either (LeaseView.NeverWritten).
func (v *NodeView) NodeLeaseRenewedAt(ctx context.Context, name string) (time.Time, error) {
	l, ok := v.w.currentLease(domain.NodeLeaseNamespace, name)
	var err error
	if !ok && v.w != nil && v.w.leaseNeverWritten(ctx, domain.NodeLeaseNamespace, name) {
		return time.Time{}, nil
	}
	if !ok {
		l, err = loadLease(ctx, v.db, domain.NodeLeaseNamespace, name)
	}
	switch {
	case errors.Is(err, domain.ErrNotFound) || err == nil && l.Deleted:
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, err
	}
	return l.RenewedAt, nil
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

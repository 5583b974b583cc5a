package projections

import (
	"context"
	"fmt"
	"time"

	"herd/domain"
	"herd/projections/viewstore"
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
// The health rules read it to start counting the fleet and keeping the
// deadlines in memory, on a term's first full resync and on every 20th
// after it (the others count from memory), never per node.
func (v *NodeView) NodeDeadlines(ctx context.Context) ([]NodeDeadline, error) {
	rows, err := nodeRows.Deadlines(ctx, v.db, domain.NodeLeaseNamespace)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	out := make([]NodeDeadline, len(rows))
	for i, r := range rows {
		out[i] = NodeDeadline{Name: r.Name, Ready: domain.ConditionStatus(r.Ready), LastHeartbeat: r.LastHeard, RegisteredAt: r.RegisteredAt}
	}
	return out, nil
}

// NodeLeaseRenewedAt returns when node name's lease in kube-node-lease
// was last renewed, by herd's clock: zero when the node has no lease.
// A view that remembers (Remembering) answers from the lease as herd
// last committed it when it holds it: the health rules ask for a node's
// lease as the node registers and renews. A lease it knows was never
// written (a node registering before its kubelet stores its lease) reads
// no row either (LeaseView.NeverWritten).
func (v *NodeView) NodeLeaseRenewedAt(ctx context.Context, name string) (time.Time, error) {
	if l, ok := v.w.currentLease(domain.NodeLeaseNamespace, name); ok {
		if l.Deleted {
			return time.Time{}, nil
		}
		return l.RenewedAt, nil
	}
	if v.w != nil && v.w.leaseNeverWritten(ctx, domain.NodeLeaseNamespace, name) {
		return time.Time{}, nil
	}
	// The renewal column alone: the lease's JSON is not read.
	renewed, err := leaseRows.RenewedAt(ctx, v.db, viewstore.Key{Namespace: domain.NodeLeaseNamespace, Name: name})
	if err != nil {
		return time.Time{}, fmt.Errorf("the renewal of node %s's lease: %w", name, err)
	}
	return renewed, nil
}

// Names returns every node's name, in order.
func (v *NodeView) Names(ctx context.Context) ([]string, error) {
	return nodeRows.Names(ctx, v.db)
}

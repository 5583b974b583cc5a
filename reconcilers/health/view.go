package health

import (
	"context"
	"errors"
	"time"

	"herd/domain"
	"herd/projections"
)

// NodeReader reads one node: all that a node's reconcile reads of the
// fleet's nodes, whatever the fleet's size.
type NodeReader interface {
	// Get returns the named node, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Node, error)
	// NodeLeaseRenewedAt returns when the node's lease was last renewed,
	// by herd's clock; zero when it has no lease.
	NodeLeaseRenewedAt(ctx context.Context, name string) (time.Time, error)
}

// FleetReader reads the fleet's recorded health: one row.
type FleetReader interface {
	FleetHealth(ctx context.Context) (domain.FleetHealth, error)
}

// DeadlineReader answers the monitor pass's first need and the full
// resyncs that read the fleet in full (a term's first, then one in
// fullReadEvery), never per node.
type DeadlineReader interface {
	// NodeDeadlines lists every node expected to report, from which the
	// fleet's count and the deadlines kept in memory start.
	NodeDeadlines(ctx context.Context) ([]projections.NodeDeadline, error)
	// NamesNeedingTaintCheck names the nodes whose condition taints may
	// not follow their conditions, for the full resync: in a healthy
	// fleet, none.
	NamesNeedingTaintCheck(ctx context.Context) ([]string, error)
}

// View is everything the health reconciler reads.
type View interface {
	NodeReader
	FleetReader
	DeadlineReader
}

var _ View = (*projections.NodeView)(nil)

// heard reads node name as the health rules judge it: its LastHeartbeat is
// when herd last heard from it, by its own reports or its lease's
// renewals (domain.LastHeard). It is the zero node, with no error, when
// the node does not exist.
func heard(ctx context.Context, v NodeReader, name string) (domain.Node, error) {
	n, err := v.Get(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Node{}, nil
	}
	if err != nil {
		return domain.Node{}, err
	}
	renewed, err := v.NodeLeaseRenewedAt(ctx, name)
	if err != nil {
		return domain.Node{}, err
	}
	n.LastHeartbeat = domain.LastHeard(n, renewed)
	return n, nil
}

package health

import (
	"context"

	"herd/domain"
	"herd/projections"
)

// NodeReader reads one node: all that a node's reconcile reads of the
// fleet's nodes, whatever the fleet's size.
type NodeReader interface {
	// Get returns the named node, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Node, error)
}

// FleetReader reads the fleet's recorded health: one row.
type FleetReader interface {
	FleetHealth(ctx context.Context) (domain.FleetHealth, error)
}

// DeadlineReader answers the monitor pass and the full resync, which run
// once per period for the whole fleet, never per node.
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

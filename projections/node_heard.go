package projections

import (
	"context"
	"fmt"
	"slices"
	"time"

	"herd/domain"
	"herd/projections/command"
	"herd/projections/viewstore"
)

// nodeCommands is how a node is commanded: the node's Commands, except
// for a command that weighs when the node's lease was last renewed
// (domain.WeighsLease: the health rules' mark of a silent node). That one
// is decided on the node and its lease's renewal as they stand where it
// is written (domain.DecideNodeHeard): a heartbeat committed before the
// mark, to the node's stream or as a renewal of its lease, is in what it
// is decided on, whenever herd's memory heard of it. A renewal committed
// after it is a heartbeat after the mark, as it would have been a moment
// later.
//
// The mark is prepared as the node's other commands are: decided outside
// the write lock on the node and its lease as last committed, its ready
// write depending on the lease's stream at the version it read
// (command.UpdateReading). When either moved before the write, it runs
// on the group commit's leader instead, in the transaction that writes
// it (onLeader).
type nodeCommands struct {
	*command.Commands[domain.Node, domain.NodeCommand]
	w *Writer
}

var _ domain.Executor[domain.Node, domain.NodeCommand] = nodeCommands{}

// Execute implements domain.Executor.
func (c nodeCommands) Execute(ctx context.Context, key domain.Key, cmd domain.NodeCommand) (domain.Node, error) {
	if !domain.WeighsLease(cmd) {
		return c.Commands.Execute(ctx, key, cmd)
	}
	u := c.w.unit
	now := u.Clock().Now()
	lease := domain.Key{Namespace: domain.NodeLeaseNamespace, Name: key.Name}.String()
	return command.UpdateReading(ctx, u, nodes.on(c.w), key.String(), leases.on(c.w), lease,
		func(n domain.Node, l domain.Lease) ([]domain.Event, error) {
			return domain.DecideNodeHeard(n, renewal(l), cmd, now)
		},
		func(tx command.Tx) (domain.Node, error) { return c.onLeader(ctx, tx, key, cmd, now) })
}

// onLeader decides the mark on the group commit's leader, in the
// transaction that writes it, on the node and its lease's renewal as
// they stand there.
func (c nodeCommands) onLeader(ctx context.Context, tx command.Tx, key domain.Key, cmd domain.NodeCommand, now time.Time) (domain.Node, error) {
	// The renewal column alone, in the write's own transaction: it sees
	// every renewal committed before, and those of this group written
	// ahead of the mark, which the unit's memory of the lease (put once
	// a group committed) would not.
	renewed, err := leaseRows.RenewedAt(ctx, tx.Views(), viewstore.Key{Namespace: domain.NodeLeaseNamespace, Name: key.Name})
	if err != nil {
		return domain.Node{}, fmt.Errorf("the renewal of node %s's lease: %w", key.Name, err)
	}
	return command.UpdateTx(ctx, c.w.unit, nodes.on(c.w), tx, key.String(), func(n domain.Node) ([]domain.Event, error) {
		return domain.DecideNodeHeard(n, renewed, cmd, now)
	})
}

// renewal is lease l's stored renewal as the lease view's renewal column
// gives it (viewstore.Leases.RenewedAt): zero for a lease never written
// or deleted.
func renewal(l domain.Lease) time.Time {
	if l.Deleted {
		return time.Time{}
	}
	return l.RenewedAt
}

// ExecuteBatch implements domain.Executor: as the node's Commands take a
// batch, in one transaction, except that a command that weighs the
// node's lease is decided as onLeader decides it, on the node and its
// lease's renewal as they stand in the batch's transaction.
func (c nodeCommands) ExecuteBatch(ctx context.Context, cmds []domain.Keyed[domain.NodeCommand]) ([]domain.Node, []error, error) {
	if !slices.ContainsFunc(cmds, func(k domain.Keyed[domain.NodeCommand]) bool { return domain.WeighsLease(k.Command) }) {
		return c.Commands.ExecuteBatch(ctx, cmds)
	}
	// renewed is the renewal of the lease of the command being decided,
	// read by update just before it decides: the batch decides its
	// commands one after the other.
	var renewed time.Time
	decide := func(n domain.Node, cmd domain.NodeCommand, now time.Time) ([]domain.Event, error) {
		if domain.WeighsLease(cmd) {
			return domain.DecideNodeHeard(n, renewed, cmd, now)
		}
		return domain.DecideNode(n, cmd, now)
	}
	u := c.w.unit
	return command.ExecuteBatch(ctx, u, cmds, decide,
		func(tx command.Tx, k domain.Keyed[domain.NodeCommand], decide func(domain.Node) ([]domain.Event, error)) (domain.Node, error) {
			if domain.WeighsLease(k.Command) {
				var err error
				renewed, err = leaseRows.RenewedAt(ctx, tx.Views(), viewstore.Key{Namespace: domain.NodeLeaseNamespace, Name: k.Key.Name})
				if err != nil {
					return domain.Node{}, fmt.Errorf("the renewal of node %s's lease: %w", k.Key.Name, err)
				}
			}
			return command.UpdateTx(ctx, u, nodes.on(c.w), tx, k.Key.String(), decide)
		})
}

// DryRun decides cmd as Execute would and writes nothing (the node's
// Commands' DryRun): a command that weighs the node's lease is decided
// on the node and its lease's renewal as committed, read one after the
// other (a dry run promises no more than that).
func (c nodeCommands) DryRun(ctx context.Context, key domain.Key, cmd domain.NodeCommand) (domain.Node, error) {
	if !domain.WeighsLease(cmd) {
		return c.Commands.DryRun(ctx, key, cmd)
	}
	renewed, err := leaseRows.RenewedAt(ctx, c.w.views, viewstore.Key{Namespace: domain.NodeLeaseNamespace, Name: key.Name})
	if err != nil {
		return domain.Node{}, fmt.Errorf("the renewal of node %s's lease: %w", key.Name, err)
	}
	return c.Commands.DryRunDeciding(ctx, key, cmd, func(n domain.Node, cmd domain.NodeCommand, now time.Time) ([]domain.Event, error) {
		return domain.DecideNodeHeard(n, renewed, cmd, now)
	})
}

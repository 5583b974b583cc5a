package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/projections/command"
	"herd/projections/viewstore"
)

// nodeCommands is how a node is commanded: the node's Commands, except
// for a command that weighs when the node's lease was last renewed
// (domain.WeighsLease: the health rules' mark of a silent node). That one
// is decided on the group commit's leader, in the transaction that writes
// it, on the node and its lease's renewal as they stand there
// (domain.DecideNodeHeard): a heartbeat committed before the mark, to the
// node's stream or as a renewal of its lease, is in what it is decided
// on, whenever herd's memory heard of it. A renewal committed after it
// is a heartbeat after the mark, as it would have been a moment later.
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
	var out domain.Node
	err := u.Do(ctx, func(tx command.Tx) error {
		// The renewal column alone, in the write's own transaction: it
		// sees every renewal committed before, and those of this group
		// written ahead of the mark, which the unit's memory of the
		// lease (put once a group committed) would not.
		renewed, err := leaseRows.RenewedAt(ctx, tx.Views(), viewstore.Key{Namespace: domain.NodeLeaseNamespace, Name: key.Name})
		if err != nil {
			return fmt.Errorf("the renewal of node %s's lease: %w", key.Name, err)
		}
		out, err = command.UpdateTx(ctx, u, nodes.on(c.w), tx, key.String(), func(n domain.Node) ([]domain.Event, error) {
			return domain.DecideNodeHeard(n, renewed, cmd, now)
		})
		return err
	})
	return out, err
}

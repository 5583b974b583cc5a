package projections

import (
	"context"

	"herd/projections/viewstore"
)

// splitNodeRows gives every node row written before the hot/cold split
// its two rows, once, as its next change would: the live view then
// equals a rebuild of the log from the first start on. It is the split's
// second step on a database an older herd wrote, after the nodes table
// lost the columns the hot row now holds (viewstore.DB's SplitNodesTable)
// and the descriptions made node_heartbeats and node_rows. A row without
// a hot row still reads whole (its JSON holds everything), so nothing is
// wrong meanwhile; this only makes the bytes what a rebuild writes.
func splitNodeRows(ctx context.Context, db *viewstore.DB) error {
	return viewstore.UpgradeOnce(ctx, db, splitNodeRowsMark, func(tx *viewTx) error {
		whole, err := viewstore.NodesWrittenWhole(ctx, tx)
		if err != nil {
			return err
		}
		for _, data := range whole {
			n, err := unmarshalNode(data)
			if err != nil {
				return err
			}
			if err := upsertNode(ctx, tx, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// splitNodeRowsMark names splitNodeRows' mark in projection_checkpoints.
const splitNodeRowsMark = "node-heartbeat-split"

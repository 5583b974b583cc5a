package projections

import (
	"context"
	"database/sql"

	"herd/events"
	"herd/projections/command"
)

// splitNodeRows gives every node row written before the hot/cold split
// (migration 0012) its two rows, once, as its next change would: the
// live view then equals a rebuild of the log from the first start on. A
// row without a hot row still reads whole (its JSON holds everything),
// so nothing is wrong meanwhile; this only makes the bytes what a rebuild
// writes.
func splitNodeRows(ctx context.Context, db *sql.DB) error {
	return upgradeOnce(ctx, db, splitNodeRowsMark, func(tx *sql.Tx) error {
		whole, err := queryRows(ctx, tx, "nodes written whole", unmarshalNode,
			`SELECT n.data FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_heartbeats h WHERE h.name = n.name) ORDER BY n.name`)
		if err != nil {
			return err
		}
		for _, n := range whole {
			if err := upsertNode(ctx, command.NewViewTx(tx, events.EngineSQLite.Dialect()), n); err != nil {
				return err
			}
		}
		return nil
	})
}

// splitNodeRowsMark names splitNodeRows' mark in projection_checkpoints.
const splitNodeRowsMark = "node-heartbeat-split"

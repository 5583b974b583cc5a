package projections

import (
	"context"
	"database/sql"
	"fmt"
)

// splitNodeRows gives every node row written before the hot/cold split
// (migration 0012) its two rows, once, as its next change would: the
// live view then equals a rebuild of the log from the first start on. A
// row without a hot row still reads whole (its JSON holds everything),
// so nothing is wrong meanwhile; this only makes the bytes what a rebuild
// writes. It runs once per database, in one transaction, and leaves a
// mark in projection_checkpoints.
func splitNodeRows(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("split node rows: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM projection_checkpoints WHERE projection = ?`, splitNodeRowsMark).Scan(&done); err != nil {
		return fmt.Errorf("split node rows: %w", err)
	}
	if done > 0 {
		return nil
	}
	whole, err := queryRows(ctx, tx, "nodes written whole", unmarshalNode,
		`SELECT n.data FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_heartbeats h WHERE h.name = n.name) ORDER BY n.name`)
	if err != nil {
		return fmt.Errorf("split node rows: %w", err)
	}
	for _, n := range whole {
		if err := upsertNode(ctx, tx, n); err != nil {
			return fmt.Errorf("split node rows: %w", err)
		}
	}
	// Stamped by SQLite's clock, as storeDerivedLabels' mark is.
	if _, err := tx.ExecContext(ctx, `INSERT INTO projection_checkpoints (projection, position, rebuilt_at)
VALUES (?, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`, splitNodeRowsMark); err != nil {
		return fmt.Errorf("split node rows: %w", err)
	}
	return tx.Commit()
}

// splitNodeRowsMark names splitNodeRows' mark in projection_checkpoints.
const splitNodeRowsMark = "node-heartbeat-split"

package projections

import (
	"context"
	"database/sql"
	"fmt"
	"maps"

	"herd/domain"
)

// storeDerivedLabels gives the node rows written before herd stored its
// derived labels (herd.dev/kind) those labels, once, as the node's next
// event would (domain.WithDerivedLabels): so the live view equals a
// rebuild of the log from the first start on, and selectors see the kind
// of a node that has been silent since. It runs once per database, in one
// transaction, and leaves a mark in projection_checkpoints.
func storeDerivedLabels(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store derived labels: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM projection_checkpoints WHERE projection = ?`, derivedLabelsMark).Scan(&done); err != nil {
		return fmt.Errorf("store derived labels: %w", err)
	}
	if done > 0 {
		return nil
	}
	stale, err := queryRows(ctx, tx, "nodes without derived labels", unmarshalNode,
		`SELECT data FROM node_rows WHERE deleted = 0 AND instr(CAST(data AS TEXT), ?) = 0`, `"`+domain.LabelKind+`":`)
	if err != nil {
		return fmt.Errorf("store derived labels: %w", err)
	}
	for _, n := range stale {
		up := domain.WithDerivedLabels(n)
		if maps.Equal(up.Labels, n.Labels) {
			continue
		}
		if err := upsertNode(ctx, tx, up); err != nil {
			return fmt.Errorf("store derived labels of %s: %w", n.Name, err)
		}
	}
	// Stamped by SQLite's clock: bookkeeping for an operator, never read
	// by herd, and Migrate has no clock of herd's to take.
	if _, err := tx.ExecContext(ctx, `INSERT INTO projection_checkpoints (projection, position, rebuilt_at)
VALUES (?, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`, derivedLabelsMark); err != nil {
		return fmt.Errorf("store derived labels: %w", err)
	}
	return tx.Commit()
}

// derivedLabelsMark names storeDerivedLabels' mark in
// projection_checkpoints: a database that has it needs no upgrade.
const derivedLabelsMark = "node-derived-labels"

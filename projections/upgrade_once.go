package projections

import (
	"context"
	"database/sql"
	"fmt"
)

// upgradeOnce runs upgrade in one transaction, once per database: it
// leaves the mark in projection_checkpoints, and a database that has the
// mark is not upgraded again. The upgrades of rows that an older herd
// wrote, and that a migration's SQL alone cannot bring up to date, go
// through it.
func upgradeOnce(ctx context.Context, db *sql.DB, mark string, upgrade func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", mark, err)
	}
	defer func() { _ = tx.Rollback() }()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM projection_checkpoints WHERE projection = ?`, mark).Scan(&done); err != nil {
		return fmt.Errorf("%s: %w", mark, err)
	}
	if done > 0 {
		return nil
	}
	if err := upgrade(tx); err != nil {
		return fmt.Errorf("%s: %w", mark, err)
	}
	// Stamped by SQLite's clock: bookkeeping for an operator, never read
	// by herd, and Migrate has no clock of herd's to take.
	if _, err := tx.ExecContext(ctx, `INSERT INTO projection_checkpoints (projection, position, rebuilt_at)
VALUES (?, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`, mark); err != nil {
		return fmt.Errorf("%s: %w", mark, err)
	}
	return tx.Commit()
}

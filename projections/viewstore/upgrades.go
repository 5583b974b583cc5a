package viewstore

import (
	"context"
	"fmt"

	"herd/events"
)

// The SQLite upgrades of rows an older herd wrote, which a migration's
// SQL alone cannot bring up to date: their statements, and the mark
// each leaves in projection_checkpoints so that it runs once per
// database. A PostgreSQL database is born in the views' present shape,
// so none of them applies there.

// UpgradeOnce runs upgrade in one transaction on v, once per database:
// it leaves mark in projection_checkpoints, and a database that has the
// mark is not upgraded again. Its errors are named by mark.
func UpgradeOnce(ctx context.Context, v *DB, mark string, upgrade func(tx *events.ViewTx) error) error {
	err := v.InTx(ctx, func(tx *events.ViewTx) error {
		var done int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM projection_checkpoints WHERE projection = ?`, mark).Scan(&done); err != nil {
			return err
		}
		if done > 0 {
			return nil
		}
		if err := upgrade(tx); err != nil {
			return err
		}
		// Stamped by SQLite's clock: bookkeeping for an operator, never
		// read by herd, and a migration has no clock of herd's to take.
		_, err := tx.ExecContext(ctx, `INSERT INTO projection_checkpoints (projection, position, rebuilt_at)
VALUES (?, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`, mark)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", mark, err)
	}
	return nil
}

// FillLeasesRenewedAt fills the renewed_at column (SQLite's 0013, now
// the leases' description) of the live leases, from the log: the time
// herd recorded the newest event since the lease's last deletion that
// set its renew time.
func FillLeasesRenewedAt(ctx context.Context, x Execer) error {
	if _, err := x.ExecContext(ctx, `UPDATE leases SET renewed_at = COALESCE((
  SELECT MAX(e.recorded_at) FROM events e
  WHERE e.stream = 'lease/' || leases.namespace || '/' || leases.name
    AND (e.type = 'LeaseRenewed'
      OR e.type IN ('LeaseCreated', 'LeaseUpdated') AND json_extract(e.payload, '$.spec.renewTime') IS NOT NULL)
    AND e.position > COALESCE((SELECT MAX(d.position) FROM events d
      WHERE d.stream = e.stream AND d.type = 'LeaseDeleted'), 0)), 0)
WHERE deleted = 0`); err != nil {
		return fmt.Errorf("fill leases' renewal times: %w", err)
	}
	return nil
}

// NodesWithout is the data of the live node rows whose JSON lacks the
// label key label (their labels written before herd stored it).
func NodesWithout(ctx context.Context, q Querier, label string) ([][]byte, error) {
	return allData(ctx, q, "nodes without derived labels",
		`SELECT data FROM node_rows WHERE deleted = 0 AND instr(CAST(data AS TEXT), ?) = 0`, `"`+label+`":`)
}

// NodesWrittenWhole is the data of the node rows written before the
// hot/cold split (migration 0012), which have no hot row, by name.
func NodesWrittenWhole(ctx context.Context, q Querier) ([][]byte, error) {
	return allData(ctx, q, "nodes written whole",
		`SELECT n.data FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_heartbeats h WHERE h.name = n.name) ORDER BY n.name`)
}

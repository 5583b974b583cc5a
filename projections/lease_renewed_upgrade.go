package projections

import (
	"context"
	"database/sql"
	"fmt"
)

// leasesRenewedAt fills the renewed_at column (migration 0013) of the
// leases renewed before it existed, once, from the log: the time herd
// recorded the newest event since the lease's last deletion that set its
// renew time, as the projection keeps it from then on. Retention keeps a
// lease's newest renewal, so the log still holds it. The live view then
// equals a rebuild of the log.
func leasesRenewedAt(ctx context.Context, db *sql.DB) error {
	return upgradeOnce(ctx, db, leasesRenewedAtMark, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE leases SET renewed_at = COALESCE((
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
	})
}

// leasesRenewedAtMark names leasesRenewedAt's mark in
// projection_checkpoints.
const leasesRenewedAtMark = "leases-renewed-at"

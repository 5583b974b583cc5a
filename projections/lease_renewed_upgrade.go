package projections

import (
	"context"

	"herd/projections/viewstore"
)

// leasesRenewedAt fills the renewed_at column (added by SQLite's 0013,
// now by the leases' description) of the leases renewed before it
// existed, once, from the log: the time herd recorded the newest event
// since the lease's last deletion that set its renew time, as the
// projection keeps it from then on. Retention keeps a lease's newest
// renewal, so the log still holds it. The live view then equals a
// rebuild of the log.
func leasesRenewedAt(ctx context.Context, db *viewstore.DB) error {
	return viewstore.UpgradeOnce(ctx, db, leasesRenewedAtMark, func(tx *viewTx) error {
		return viewstore.FillLeasesRenewedAt(ctx, tx)
	})
}

// leasesRenewedAtMark names leasesRenewedAt's mark in
// projection_checkpoints.
const leasesRenewedAtMark = "leases-renewed-at"

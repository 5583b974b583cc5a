package projections

import (
	"context"
	"fmt"

	"herd/projections/viewstore"
)

// fillIPPoolsFree derives the free addresses (migration 0021, PostgreSQL
// 0010) of the pools an older herd wrote, from their allocations, as the
// unit of work keeps them from then on: the live view then equals a
// rebuild of the log. A pool already filled is not read again, so a start
// after the first costs one query of the few pool rows.
func fillIPPoolsFree(ctx context.Context, v *viewstore.DB) error {
	pools, err := addressRows.Unfilled(ctx, v)
	if err != nil {
		return fmt.Errorf("fill IP pools' free addresses: %w", err)
	}
	for _, p := range pools {
		if err := fillIPPoolFree(ctx, v, p.CIDR, p.Version); err != nil {
			return err
		}
	}
	return nil
}

// fillIPPoolFree fills one pool's row in a transaction of its own; a
// writer that changed the pool meanwhile wrote its free addresses itself,
// and the row is left as it wrote it.
func fillIPPoolFree(ctx context.Context, v *viewstore.DB, pool string, version int64) error {
	err := v.InTx(ctx, func(vt *viewTx) error {
		all, err := addressRows.InPool(ctx, vt, pool)
		if err != nil {
			return err
		}
		p := ipPoolFromRows(pool, version, all)
		return addressRows.Fill(ctx, vt, viewstore.Pool{CIDR: pool, Version: version, InUse: p.InUse, Free: encodeIPPoolFree(p)})
	})
	if err != nil {
		return fmt.Errorf("fill IP pool %s's free addresses: %w", pool, err)
	}
	return nil
}

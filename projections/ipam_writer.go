package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"herd/domain"
)

var _ domain.IPPoolRepository = (*Writer)(nil)

// UpdateIPPool implements domain.IPPoolRepository. The pool's version is
// the expected version of the append, so of two allocators that read the
// same pool only the first commits; the other gets domain.ErrConflict and
// decides again on the pool as it now stands.
func (w *Writer) UpdateIPPool(ctx context.Context, cidr string, update func(domain.IPPool) ([]domain.Event, error)) (domain.IPPool, error) {
	var out domain.IPPool
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		p, err := loadIPPool(ctx, tx, cidr)
		if err != nil {
			return err
		}
		out = p
		evs, err := update(p)
		if err != nil || len(evs) == 0 {
			return err
		}
		recs, stored, err := w.appendStored(ctx, tx, domain.IPPoolStream(cidr), p.Version, evs)
		if err != nil {
			return err
		}
		for i, rec := range recs {
			// p was loaded by this transaction and nobody else holds it,
			// so its allocations change in place.
			domain.FoldIPPool(&p, stored[i])
			if err := storeIPAMChange(ctx, tx, cidr, applyIPAM(cidr, rec, stored[i])); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, upsertIPPoolSQL, cidr, p.Version, recs[len(recs)-1].Position, len(p.Allocations)); err != nil {
			return fmt.Errorf("ipam view %s: %w", cidr, err)
		}
		out = p
		return nil
	})
	return out, err
}

// loadIPPool reads a pool's snapshot: its version and its allocations. A
// pool that never handed anything out is empty with version 0.
func loadIPPool(ctx context.Context, tx *sql.Tx, cidr string) (domain.IPPool, error) {
	p := domain.IPPool{CIDR: cidr}
	err := tx.QueryRowContext(ctx, `SELECT version FROM ip_pools WHERE pool = ?`, cidr).Scan(&p.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("load IP pool %s: %w", cidr, err)
	}
	allocs, err := scanAllocations(ctx, tx, `WHERE pool = ?`, cidr)
	if err != nil {
		return p, err
	}
	if len(allocs) > 0 {
		p.Allocations = make(map[string]domain.IPAllocation, len(allocs))
	}
	for _, a := range allocs {
		p.Allocations[a.Address] = a.IPAllocation
	}
	return p, nil
}

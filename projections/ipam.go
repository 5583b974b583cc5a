package projections

import (
	"context"
	"errors"
	"fmt"

	"herd/domain"
	"herd/events"
)

// ipPools describes the IP pool: its row in ip_pools, and its allocations
// in ip_allocations beside it, one row per address in use.
var ipPools = describe(&aggregate[domain.IPPool]{
	of:      domain.IPPoolAggregate,
	fresh:   func(cidr string) domain.IPPool { return domain.IPPool{CIDR: cidr} },
	load:    loadIPPool,
	version: func(p domain.IPPool) int64 { return p.Version },
	evolve: func(p domain.IPPool, _ events.Record, ev domain.Event) domain.IPPool {
		// p was loaded by this unit of work (or is a rebuild's own) and
		// nobody else holds it, so its allocations change in place.
		domain.FoldIPPool(&p, ev)
		return p
	},
	eventRows: func(ctx context.Context, x execer, cidr string, rec events.Record, ev domain.Event) error {
		return storeIPAMChange(ctx, x, cidr, applyIPAM(cidr, rec, ev))
	},
	upsert: func(ctx context.Context, x execer, cidr string, p domain.IPPool, rv int64) error {
		if _, err := x.ExecContext(ctx, upsertIPPoolSQL, cidr, p.Version, rv, len(p.Allocations)); err != nil {
			return fmt.Errorf("ipam view %s: %w", cidr, err)
		}
		return nil
	},
	tables: []viewTable{{"ip_pools", "pool"}, {"ip_allocations", "pool, address"}},
})

var _ domain.IPPoolRepository = (*Writer)(nil)

// UpdateIPPool implements domain.IPPoolRepository. The pool's version is
// the expected version of the append, so of two allocators that read the
// same pool only the first commits; the other gets domain.ErrConflict and
// decides again on the pool as it now stands.
func (w *Writer) UpdateIPPool(ctx context.Context, cidr string, update func(domain.IPPool) ([]domain.Event, error)) (domain.IPPool, error) {
	return ipPools.update(ctx, w, cidr, update)
}

// loadIPPool reads a pool's snapshot: its version and its allocations. A
// pool that never handed anything out is empty with version 0.
func loadIPPool(ctx context.Context, q events.Querier, cidr string) (domain.IPPool, error) {
	p := domain.IPPool{CIDR: cidr}
	rows, err := q.QueryContext(ctx, `SELECT version FROM ip_pools WHERE pool = ?`, cidr)
	if err != nil {
		return p, fmt.Errorf("load IP pool %s: %w", cidr, err)
	}
	found := rows.Next()
	if found {
		err = rows.Scan(&p.Version)
	}
	if err = errors.Join(err, rows.Err(), rows.Close()); err != nil {
		return p, fmt.Errorf("load IP pool %s: %w", cidr, err)
	}
	if !found {
		return p, nil
	}
	allocs, err := scanAllocations(ctx, q, `WHERE pool = ?`, cidr)
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

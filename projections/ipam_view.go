package projections

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"

	"herd/domain"
	"herd/events"
)

// IPAllocation is one address in use, as the IPAM view holds it.
type IPAllocation struct {
	domain.IPAllocation
	// Pool is the CIDR of the pool the address belongs to.
	Pool string
	// Position is the log position of the allocation.
	Position int64
}

// IPPoolUsage is how full a pool is.
type IPPoolUsage struct {
	Pool  string
	InUse int
	// ResourceVersion is the log position of the pool's last event.
	ResourceVersion int64
}

// IPAMView answers queries about IP pools and their addresses.
type IPAMView struct {
	db *viewDB
}

// NewIPAMView returns an IPAMView reading the views beside log.
func NewIPAMView(log events.Log) *IPAMView { return &IPAMView{db: newViewDB(log)} }

// AllocationOf returns the address a pod (by UID) holds, in any pool, and
// whether it holds one.
func (v *IPAMView) AllocationOf(ctx context.Context, uid string) (IPAllocation, bool, error) {
	allocs, err := queryAllocations(ctx, v.db, `WHERE pod_uid = ?`, uid)
	if err != nil || len(allocs) == 0 {
		return IPAllocation{}, false, err
	}
	return allocs[0], true, nil
}

// AllocationsNamed returns the addresses held under a pod's name, by
// whichever pods had it: the pod of that name now, and any made under
// the name before whose address has not gone back yet.
func (v *IPAMView) AllocationsNamed(ctx context.Context, namespace, name string) ([]IPAllocation, error) {
	return queryAllocations(ctx, v.db, `WHERE namespace = ? AND name = ?`, namespace, name)
}

// Allocations returns every address in use, by pool, then by address in
// numeric order.
func (v *IPAMView) Allocations(ctx context.Context) ([]IPAllocation, error) {
	return queryAllocations(ctx, v.db, "")
}

// Pools returns every pool that ever handed out an address, with how many
// it has in use now.
func (v *IPAMView) Pools(ctx context.Context) ([]IPPoolUsage, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT pool, in_use, resource_version FROM ip_pools ORDER BY pool`)
	if err != nil {
		return nil, fmt.Errorf("ipam view: %w", err)
	}
	defer rows.Close()
	var out []IPPoolUsage
	for rows.Next() {
		var u IPPoolUsage
		if err := rows.Scan(&u.Pool, &u.InUse, &u.ResourceVersion); err != nil {
			return nil, fmt.Errorf("ipam view: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// queryAllocations reads allocation rows matching where (a WHERE clause,
// or empty), sorted by pool and numeric address.
func queryAllocations(ctx context.Context, q events.Querier, where string, args ...any) ([]IPAllocation, error) {
	out, err := scanAllocations(ctx, q, where, args...)
	if err != nil {
		return nil, err
	}
	type keyed struct {
		addr netip.Addr
		a    IPAllocation
	}
	ks := make([]keyed, len(out))
	for i, a := range out {
		ks[i].addr, _ = netip.ParseAddr(a.Address)
		ks[i].a = a
	}
	slices.SortFunc(ks, func(x, y keyed) int {
		if c := cmp.Compare(x.a.Pool, y.a.Pool); c != 0 {
			return c
		}
		return x.addr.Compare(y.addr)
	})
	for i := range ks {
		out[i] = ks[i].a
	}
	return out, nil
}

// scanAllocations reads allocation rows matching where, in no particular
// order.
func scanAllocations(ctx context.Context, q events.Querier, where string, args ...any) ([]IPAllocation, error) {
	rows, err := q.QueryContext(ctx, `SELECT pool, address, pod_uid, namespace, name, allocated_at, position FROM ip_allocations `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("ipam view: %w", err)
	}
	defer rows.Close()
	var out []IPAllocation
	for rows.Next() {
		a, err := scanAllocation(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ipam view: %w", err)
	}
	return out, nil
}

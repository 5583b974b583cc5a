package projections

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
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
	db *viewstore.DB
}

// NewIPAMView returns an IPAMView reading the views beside log.
func NewIPAMView(log events.Log) *IPAMView { return &IPAMView{db: viewstore.NewDB(log)} }

// AllocationOf returns the address a pod (by UID) holds, in any pool, and
// whether it holds one.
func (v *IPAMView) AllocationOf(ctx context.Context, uid string) (IPAllocation, bool, error) {
	allocs, err := sortedAllocations(addressRows.OfPod(ctx, v.db, uid))
	if err != nil || len(allocs) == 0 {
		return IPAllocation{}, false, err
	}
	return allocs[0], true, nil
}

// AllocationsNamed returns the addresses held under a pod's name, by
// whichever pods had it: the pod of that name now, and any made under
// the name before whose address has not gone back yet.
func (v *IPAMView) AllocationsNamed(ctx context.Context, namespace, name string) ([]IPAllocation, error) {
	return sortedAllocations(addressRows.Named(ctx, v.db, namespace, name))
}

// Allocations returns every address in use, by pool, then by address in
// numeric order.
func (v *IPAMView) Allocations(ctx context.Context) ([]IPAllocation, error) {
	return sortedAllocations(addressRows.All(ctx, v.db))
}

// Pools returns every pool that ever handed out an address, with how many
// it has in use now.
func (v *IPAMView) Pools(ctx context.Context) ([]IPPoolUsage, error) {
	rows, err := addressRows.Pools(ctx, v.db)
	if err != nil {
		return nil, fmt.Errorf("ipam view: %w", err)
	}
	var out []IPPoolUsage
	for _, r := range rows {
		out = append(out, IPPoolUsage{Pool: r.CIDR, InUse: r.InUse, ResourceVersion: r.ResourceVersion})
	}
	return out, nil
}

// sortedAllocations is rows, read by a store's read of allocations, as
// the view answers them: sorted by pool and numeric address.
func sortedAllocations(rows []viewstore.Allocation, err error) ([]IPAllocation, error) {
	if err != nil {
		return nil, fmt.Errorf("ipam view: %w", err)
	}
	type keyed struct {
		addr netip.Addr
		a    IPAllocation
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		ks[i].addr, _ = netip.ParseAddr(r.Address)
		ks[i].a = ipAllocation(r)
	}
	slices.SortFunc(ks, func(x, y keyed) int {
		if c := cmp.Compare(x.a.Pool, y.a.Pool); c != 0 {
			return c
		}
		return x.addr.Compare(y.addr)
	})
	var out []IPAllocation
	if len(ks) > 0 {
		out = make([]IPAllocation, len(ks))
	}
	for i := range ks {
		out[i] = ks[i].a
	}
	return out, nil
}

package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// addressRows are the IP address views' tables (ip_pools and
// ip_allocations) behind the views' store port: the pool's aggregate,
// its rebuild and IPAMView read and write them only through it.
var addressRows = viewstore.NewAddresses()

// ipamChange is what one logged IPAM event does to the allocation rows:
// put a row, or delete the row of an address.
type ipamChange struct {
	put *viewstore.Allocation
	del string
}

// applyIPAM says what a logged pool event changes; the live view and the
// rebuild both go through it.
func applyIPAM(pool string, rec events.Record, ev domain.Event) ipamChange {
	switch e := ev.(type) {
	case domain.IPAllocated:
		return ipamChange{put: &viewstore.Allocation{
			Pool: pool, Address: e.Address, PodUID: e.PodUID, Namespace: e.Namespace, Name: e.Name,
			At: e.At, Position: rec.Position,
		}}
	case domain.IPReleased:
		return ipamChange{del: e.Address}
	}
	return ipamChange{}
}

// storeIPAMChange writes one change to the allocation rows.
func storeIPAMChange(ctx context.Context, x execer, pool string, c ipamChange) error {
	var err error
	switch {
	case c.put != nil:
		err = addressRows.Allocate(ctx, x, *c.put)
	case c.del != "":
		err = addressRows.Release(ctx, x, pool, c.del)
	}
	if err != nil {
		return fmt.Errorf("ipam view %s: %w", pool, err)
	}
	return nil
}

// domainAllocation is an allocation row as the pool's state keeps it.
func domainAllocation(a viewstore.Allocation) domain.IPAllocation {
	return domain.IPAllocation{Address: a.Address, PodUID: a.PodUID, Namespace: a.Namespace, Name: a.Name, At: a.At}
}

// ipAllocation is an allocation row as IPAMView answers it.
func ipAllocation(a viewstore.Allocation) IPAllocation {
	return IPAllocation{IPAllocation: domainAllocation(a), Pool: a.Pool, Position: a.Position}
}

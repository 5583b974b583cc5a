package projections

import (
	"context"
	"fmt"
	"time"

	"herd/domain"
	"herd/events"
)

// ipamChange is what one logged IPAM event does to the allocation rows:
// put a row, or delete the row of an address.
type ipamChange struct {
	put *allocationRow
	del string
}

// allocationRow is one ip_allocations row.
type allocationRow struct {
	pool, address, podUID, namespace, name, allocatedAt string
	position                                            int64
}

func (r allocationRow) args() []any {
	return []any{r.pool, r.address, r.podUID, r.namespace, r.name, r.allocatedAt, r.position}
}

// applyIPAM says what a logged pool event changes; the live view and the
// rebuild both go through it.
func applyIPAM(pool string, rec events.Record, ev domain.Event) ipamChange {
	switch e := ev.(type) {
	case domain.IPAllocated:
		return ipamChange{put: &allocationRow{
			pool: pool, address: e.Address, podUID: e.PodUID, namespace: e.Namespace, name: e.Name,
			allocatedAt: e.At.UTC().Format(time.RFC3339Nano), position: rec.Position,
		}}
	case domain.IPReleased:
		return ipamChange{del: e.Address}
	}
	return ipamChange{}
}

const (
	upsertIPPoolSQL = `INSERT INTO ip_pools (pool, version, resource_version, in_use, free) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (pool) DO UPDATE SET version = excluded.version, resource_version = excluded.resource_version, in_use = excluded.in_use, free = excluded.free`
	insertAllocationSQL = `INSERT INTO ip_allocations (pool, address, pod_uid, namespace, name, allocated_at, position) VALUES (?, ?, ?, ?, ?, ?, ?)`
	deleteAllocationSQL = `DELETE FROM ip_allocations WHERE pool = ? AND address = ?`
)

// storeIPAMChange writes one change to the allocation rows.
func storeIPAMChange(ctx context.Context, tx execer, pool string, c ipamChange) error {
	var err error
	switch {
	case c.put != nil:
		_, err = tx.ExecContext(ctx, insertAllocationSQL, c.put.args()...)
	case c.del != "":
		_, err = tx.ExecContext(ctx, deleteAllocationSQL, pool, c.del)
	}
	if err != nil {
		return fmt.Errorf("ipam view %s: %w", pool, err)
	}
	return nil
}

// scanAllocation reads one ip_allocations row (pool, address, pod_uid,
// namespace, name, allocated_at, position).
func scanAllocation(scan func(...any) error) (IPAllocation, error) {
	var (
		a  IPAllocation
		at string
	)
	if err := scan(&a.Pool, &a.Address, &a.PodUID, &a.Namespace, &a.Name, &at, &a.Position); err != nil {
		return a, fmt.Errorf("ipam view: %w", err)
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return a, fmt.Errorf("ipam view: %s allocated at %q: %w", a.Address, at, err)
	}
	a.At = t
	return a, nil
}

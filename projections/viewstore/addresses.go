package viewstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"herd/events"
)

// Pool is a row of the IP pools' view: a pool (its CIDR) that handed out
// an address, the number of events of its stream the row reflects, the
// log position of the last one, how many addresses it has in use, and
// where its free ones are, in the IPAM view's own encoding (the store
// keeps it as text and never reads it); Free is "" for a row that keeps
// none, as an older herd wrote it.
type Pool struct {
	CIDR                     string
	Version, ResourceVersion int64
	InUse                    int
	Free                     string
}

// Allocation is a row of the IP addresses in use: one address of a pool,
// the pod (by UID, namespace and name) that holds it, when it was handed
// out by herd's clock — it reads back in UTC, to the nanosecond — and the
// log position of the event that handed it out.
type Allocation struct {
	Pool, Address           string
	PodUID, Namespace, Name string
	At                      time.Time
	Position                int64
}

// Addresses is the IP address views' two tables, on one engine or on
// whichever a handle is of (NewAddresses): a row per pool (ip_pools), and
// a row per address in use (ip_allocations), keyed by pool and address,
// so that a second holder of an address is refused outright. What a
// command reads of a pool does not grow with the pool: its row (Pool) and
// one pod's allocations in it (OfPodIn); only a pool row an older herd
// wrote is read with all its allocations (InPool), once. Reads of several
// allocations come in no particular order.
type Addresses interface {
	// Pool is the row of the pool cidr, or ErrNoRow.
	Pool(ctx context.Context, q Querier, cidr string) (Pool, error)
	// PutPool writes p in place of its pool's row; p.Free "" keeps none.
	PutPool(ctx context.Context, x Execer, p Pool) error
	// Pools is every pool's row, in CIDR order (bytewise), without its
	// free addresses (Free is ""): how full each pool is.
	Pools(ctx context.Context, q Querier) ([]Pool, error)
	// Unfilled is the CIDR and version of every pool whose row keeps no
	// free addresses (the other fields are zero), in no particular order.
	Unfilled(ctx context.Context, q Querier) ([]Pool, error)
	// Fill writes p's InUse and Free into its pool's row if that row is
	// still at p.Version and keeps no free addresses, and leaves it as it
	// is otherwise: a writer that changed the pool meanwhile wrote them
	// itself. p.Free must not be "".
	Fill(ctx context.Context, x Execer, p Pool) error
	// Allocate adds a; an address of the pool already held is an error.
	Allocate(ctx context.Context, x Execer, a Allocation) error
	// Release removes the allocation of address in pool; an address not
	// held is no error.
	Release(ctx context.Context, x Execer, pool, address string) error
	// InPool is every allocation of pool.
	InPool(ctx context.Context, q Querier, pool string) ([]Allocation, error)
	// OfPodIn is the allocations of the pod uid in pool.
	OfPodIn(ctx context.Context, q Querier, pool, uid string) ([]Allocation, error)
	// OfPod is the allocations of the pod uid, in any pool.
	OfPod(ctx context.Context, q Querier, uid string) ([]Allocation, error)
	// Named is the allocations held under namespace and name, by
	// whichever pods had that name (index ip_allocations_by_name).
	Named(ctx context.Context, q Querier, namespace, name string) ([]Allocation, error)
	// All is every allocation.
	All(ctx context.Context, q Querier) ([]Allocation, error)
}

// allocationColumns are what an allocation read selects, in
// scanAllocations' order.
const allocationColumns = "pool, address, pod_uid, namespace, name, allocated_at, position"

// The IP address views' statements, with "?" markers. The writes are the
// ones a rebuild gathers into many-row inserts: their text is the same on
// every call.
const (
	poolSQL    = "SELECT version, resource_version, in_use, free FROM ip_pools WHERE pool = ?"
	putPoolSQL = "INSERT INTO ip_pools (pool, version, resource_version, in_use, free) VALUES (?, ?, ?, ?, ?)" +
		" ON CONFLICT (pool) DO UPDATE SET version = excluded.version, resource_version = excluded.resource_version," +
		" in_use = excluded.in_use, free = excluded.free"
	poolsSQL    = "SELECT pool, version, resource_version, in_use FROM ip_pools ORDER BY pool"
	unfilledSQL = "SELECT pool, version FROM ip_pools WHERE free IS NULL"
	fillSQL     = "UPDATE ip_pools SET in_use = ?, free = ? WHERE pool = ? AND version = ? AND free IS NULL"

	allocateSQL = "INSERT INTO ip_allocations (" + allocationColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?)"
	releaseSQL  = "DELETE FROM ip_allocations WHERE pool = ? AND address = ?"
	inPoolSQL   = "SELECT " + allocationColumns + " FROM ip_allocations WHERE pool = ?"
	ofPodInSQL  = "SELECT " + allocationColumns + " FROM ip_allocations WHERE pool = ? AND pod_uid = ?"
	ofPodSQL    = "SELECT " + allocationColumns + " FROM ip_allocations WHERE pod_uid = ?"
	namedSQL    = "SELECT " + allocationColumns + " FROM ip_allocations WHERE namespace = ? AND name = ?"
	allSQL      = "SELECT " + allocationColumns + " FROM ip_allocations"
)

// addressStore is the IP address views in one engine, shaped by its
// dialect as objectStore is: reads bound once here, writes kept with "?"
// markers for the handles to bind.
type addressStore struct {
	pool, pools, unfilled              string
	inPool, ofPodIn, ofPod, named, all string
}

// NewSQLiteAddresses is the IP address views in SQLite.
func NewSQLiteAddresses() Addresses { return newAddressStore(events.EngineSQLite.Dialect()) }

// NewPostgresAddresses is the IP address views in PostgreSQL.
func NewPostgresAddresses() Addresses { return newAddressStore(events.EnginePostgres.Dialect()) }

func newAddressStore(d events.Dialect) *addressStore {
	return &addressStore{
		pool:     d.Bind(poolSQL),
		pools:    d.Bind(poolsSQL),
		unfilled: d.Bind(unfilledSQL),
		inPool:   d.Bind(inPoolSQL),
		ofPodIn:  d.Bind(ofPodInSQL),
		ofPod:    d.Bind(ofPodSQL),
		named:    d.Bind(namedSQL),
		all:      d.Bind(allSQL),
	}
}

func (s *addressStore) Pool(ctx context.Context, q Querier, cidr string) (Pool, error) {
	p := Pool{CIDR: cidr}
	rows, err := q.QueryContext(ctx, s.pool, cidr)
	if err != nil {
		return p, fmt.Errorf("ip_pools: %w", err)
	}
	var free sql.NullString
	found := rows.Next()
	if found {
		err = rows.Scan(&p.Version, &p.ResourceVersion, &p.InUse, &free)
	}
	if err = errors.Join(err, rows.Err(), rows.Close()); err != nil {
		return p, fmt.Errorf("ip_pools: %w", err)
	}
	if !found {
		return p, ErrNoRow
	}
	p.Free = free.String
	return p, nil
}

func (s *addressStore) PutPool(ctx context.Context, x Execer, p Pool) error {
	return exec(ctx, x, "ip_pools", putPoolSQL, p.CIDR, p.Version, p.ResourceVersion, p.InUse, orNull(p.Free))
}

func (s *addressStore) Pools(ctx context.Context, q Querier) ([]Pool, error) {
	return scanPools(ctx, q, s.pools, func(p *Pool) []any {
		return []any{&p.CIDR, &p.Version, &p.ResourceVersion, &p.InUse}
	})
}

func (s *addressStore) Unfilled(ctx context.Context, q Querier) ([]Pool, error) {
	return scanPools(ctx, q, s.unfilled, func(p *Pool) []any { return []any{&p.CIDR, &p.Version} })
}

func (s *addressStore) Fill(ctx context.Context, x Execer, p Pool) error {
	if p.Free == "" {
		return fmt.Errorf("ip_pools: fill %s with no free addresses", p.CIDR)
	}
	return exec(ctx, x, "ip_pools", fillSQL, p.InUse, p.Free, p.CIDR, p.Version)
}

func (s *addressStore) Allocate(ctx context.Context, x Execer, a Allocation) error {
	return exec(ctx, x, "ip_allocations", allocateSQL,
		a.Pool, a.Address, a.PodUID, a.Namespace, a.Name, a.At.UTC().Format(time.RFC3339Nano), a.Position)
}

func (s *addressStore) Release(ctx context.Context, x Execer, pool, address string) error {
	return exec(ctx, x, "ip_allocations", releaseSQL, pool, address)
}

func (s *addressStore) InPool(ctx context.Context, q Querier, pool string) ([]Allocation, error) {
	return scanAllocations(ctx, q, s.inPool, pool)
}

func (s *addressStore) OfPodIn(ctx context.Context, q Querier, pool, uid string) ([]Allocation, error) {
	return scanAllocations(ctx, q, s.ofPodIn, pool, uid)
}

func (s *addressStore) OfPod(ctx context.Context, q Querier, uid string) ([]Allocation, error) {
	return scanAllocations(ctx, q, s.ofPod, uid)
}

func (s *addressStore) Named(ctx context.Context, q Querier, namespace, name string) ([]Allocation, error) {
	return scanAllocations(ctx, q, s.named, namespace, name)
}

func (s *addressStore) All(ctx context.Context, q Querier) ([]Allocation, error) {
	return scanAllocations(ctx, q, s.all)
}

// orNull is s as a statement's argument, NULL for "".
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// scanPools runs query, which selects what into gives the addresses of,
// and reads its rows.
func scanPools(ctx context.Context, q Querier, query string, into func(*Pool) []any) ([]Pool, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("ip_pools: %w", err)
	}
	defer rows.Close()
	var out []Pool
	for rows.Next() {
		var p Pool
		if err := rows.Scan(into(&p)...); err != nil {
			return nil, fmt.Errorf("ip_pools: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ip_pools: %w", err)
	}
	return out, nil
}

// scanAllocations runs query, which selects allocationColumns, and reads
// its rows.
func scanAllocations(ctx context.Context, q Querier, query string, args ...any) ([]Allocation, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("ip_allocations: %w", err)
	}
	defer rows.Close()
	var out []Allocation
	for rows.Next() {
		var (
			a  Allocation
			at string
		)
		if err := rows.Scan(&a.Pool, &a.Address, &a.PodUID, &a.Namespace, &a.Name, &at, &a.Position); err != nil {
			return nil, fmt.Errorf("ip_allocations: %w", err)
		}
		if a.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("ip_allocations: %s allocated at %q: %w", a.Address, at, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ip_allocations: %w", err)
	}
	return out, nil
}

// NewAddresses is the IP address views on whichever engine each handle
// it is given is of, as New is for an object table.
func NewAddresses() Addresses {
	return addressEngines{byEngine[Addresses]{sqlite: NewSQLiteAddresses(), postgres: NewPostgresAddresses()}}
}

// addressEngines picks the IP address views of a handle's engine.
type addressEngines struct{ byEngine[Addresses] }

func (e addressEngines) Pool(ctx context.Context, q Querier, cidr string) (Pool, error) {
	return get(e.byEngine, q, func(s Addresses) (Pool, error) { return s.Pool(ctx, q, cidr) })
}

func (e addressEngines) PutPool(ctx context.Context, x Execer, p Pool) error {
	return run(e.byEngine, x, func(s Addresses) error { return s.PutPool(ctx, x, p) })
}

func (e addressEngines) Pools(ctx context.Context, q Querier) ([]Pool, error) {
	return get(e.byEngine, q, func(s Addresses) ([]Pool, error) { return s.Pools(ctx, q) })
}

func (e addressEngines) Unfilled(ctx context.Context, q Querier) ([]Pool, error) {
	return get(e.byEngine, q, func(s Addresses) ([]Pool, error) { return s.Unfilled(ctx, q) })
}

func (e addressEngines) Fill(ctx context.Context, x Execer, p Pool) error {
	return run(e.byEngine, x, func(s Addresses) error { return s.Fill(ctx, x, p) })
}

func (e addressEngines) Allocate(ctx context.Context, x Execer, a Allocation) error {
	return run(e.byEngine, x, func(s Addresses) error { return s.Allocate(ctx, x, a) })
}

func (e addressEngines) Release(ctx context.Context, x Execer, pool, address string) error {
	return run(e.byEngine, x, func(s Addresses) error { return s.Release(ctx, x, pool, address) })
}

func (e addressEngines) InPool(ctx context.Context, q Querier, pool string) ([]Allocation, error) {
	return get(e.byEngine, q, func(s Addresses) ([]Allocation, error) { return s.InPool(ctx, q, pool) })
}

func (e addressEngines) OfPodIn(ctx context.Context, q Querier, pool, uid string) ([]Allocation, error) {
	return get(e.byEngine, q, func(s Addresses) ([]Allocation, error) { return s.OfPodIn(ctx, q, pool, uid) })
}

func (e addressEngines) OfPod(ctx context.Context, q Querier, uid string) ([]Allocation, error) {
	return get(e.byEngine, q, func(s Addresses) ([]Allocation, error) { return s.OfPod(ctx, q, uid) })
}

func (e addressEngines) Named(ctx context.Context, q Querier, namespace, name string) ([]Allocation, error) {
	return get(e.byEngine, q, func(s Addresses) ([]Allocation, error) { return s.Named(ctx, q, namespace, name) })
}

func (e addressEngines) All(ctx context.Context, q Querier) ([]Allocation, error) {
	return get(e.byEngine, q, func(s Addresses) ([]Allocation, error) { return s.All(ctx, q) })
}

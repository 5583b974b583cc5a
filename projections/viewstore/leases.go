package viewstore

import (
	"context"
	"fmt"
	"time"

	"herd/events"
)

// Lease is a row of the lease view: an object's row (its table keeps no
// controller) and when herd received the lease's newest renewal, by its
// own clock — the zero time for never. That time is no part of the
// lease's JSON (a client's renewTime is the holder's clock, not herd's),
// so it is a column of its own, which a node's health reads beside the
// node's heartbeat.
type Lease struct {
	Row
	RenewedAt time.Time
}

// Leases is the lease view's table, on one engine or on whichever a
// handle is of (NewLeases). It is Store's shape where a lease's row
// differs — Get and Upsert carry the renewal time — and keeps of Store's
// reads only those the lease view makes; its rows are never deleted (a
// deleted lease is a tombstone until a rebuild). Reads at head are as
// Store's.
type Leases interface {
	// Get is the data and renewal time of the row at key, tombstone or
	// not, or ErrNoRow.
	Get(ctx context.Context, q Querier, key Key) ([]byte, time.Time, error)
	// RenewedAt is the renewal time of the live row at key, without its
	// data: what a node's health asks of its lease, at every renewal.
	// The zero time when there is no row or the row is a tombstone.
	RenewedAt(ctx context.Context, q Querier, key Key) (time.Time, error)
	// Upsert writes l in place of the row at its key.
	Upsert(ctx context.Context, x Execer, l Lease) error
	// List is Store.List of the leases.
	List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error)
	// After is Store.After of the leases.
	After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error)
}

// leaseSchema is the lease view's table: an object table's columns with
// renewed_at (unix nanoseconds, 0 for never) before the data.
var leaseSchema = Schema{
	Table:   "leases",
	Keys:    []string{"namespace", "name"},
	Columns: []string{"deleted", "version", "resource_version", "renewed_at", "data"},
}

// leaseStore is the lease table in one engine, shaped by its dialect as
// objectStore is.
type leaseStore struct {
	d                                   events.Dialect
	get, renewedAt, upsert, list, after string
}

// NewSQLiteLeases is the lease table in SQLite.
func NewSQLiteLeases() Leases { return newLeaseStore(events.EngineSQLite.Dialect()) }

// NewPostgresLeases is the lease table in PostgreSQL.
func NewPostgresLeases() Leases { return newLeaseStore(events.EnginePostgres.Dialect()) }

func newLeaseStore(d events.Dialect) *leaseStore {
	return &leaseStore{
		d:         d,
		get:       d.Bind(leaseSchema.getSQL("data", "renewed_at")),
		renewedAt: d.Bind(leaseSchema.getSQL("deleted", "renewed_at")),
		upsert:    leaseSchema.upsertSQL(),
		list:      d.Bind(d.AtHead(listFrom(leaseSchema.Table))),
		after:     d.Bind(leaseSchema.rowsAtHeadSQL(d)),
	}
}

func (s *leaseStore) Get(ctx context.Context, q Querier, key Key) ([]byte, time.Time, error) {
	rows, err := q.QueryContext(ctx, s.get, key.Namespace, key.Name)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("leases: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, time.Time{}, fmt.Errorf("leases: %w", err)
		}
		return nil, time.Time{}, ErrNoRow
	}
	var (
		data      []byte
		renewedAt int64
	)
	if err := rows.Scan(&data, &renewedAt); err != nil {
		return nil, time.Time{}, fmt.Errorf("leases: %w", err)
	}
	return data, fromUnixNanos(renewedAt), rows.Err()
}

func (s *leaseStore) RenewedAt(ctx context.Context, q Querier, key Key) (time.Time, error) {
	rows, err := q.QueryContext(ctx, s.renewedAt, key.Namespace, key.Name)
	if err != nil {
		return time.Time{}, fmt.Errorf("leases: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return time.Time{}, rows.Err()
	}
	var (
		deleted   bool
		renewedAt int64
	)
	if err := rows.Scan(&deleted, &renewedAt); err != nil {
		return time.Time{}, fmt.Errorf("leases: %w", err)
	}
	if deleted {
		return time.Time{}, rows.Err()
	}
	return fromUnixNanos(renewedAt), rows.Err()
}

func (s *leaseStore) Upsert(ctx context.Context, x Execer, l Lease) error {
	if l.Controller != "" {
		return fmt.Errorf("%s keeps no controller", leaseSchema.Table)
	}
	return exec(ctx, x, leaseSchema.Table, s.upsert, s.d.Args([]any{l.Namespace, l.Name, l.Deleted, l.Version, l.ResourceVersion, unixNanos(l.RenewedAt), l.Data})...)
}

func (s *leaseStore) List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.list, namespace, namespace)
}

func (s *leaseStore) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.after, s.d.Args([]any{after.Namespace, after.Name, events.LimitOf(limit)})...)
}

// unixNanos is how a renewal time is kept: unix nanoseconds, 0 for the
// zero time.
func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromUnixNanos undoes unixNanos, in UTC.
func fromUnixNanos(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// NewLeases is the lease table on whichever engine each handle it is
// given is of, as New is for an object table.
func NewLeases() Leases {
	return leaseEngines{byEngine[Leases]{sqlite: NewSQLiteLeases(), postgres: NewPostgresLeases()}}
}

// leaseEngines picks the lease table of a handle's engine.
type leaseEngines struct{ byEngine[Leases] }

func (e leaseEngines) Get(ctx context.Context, q Querier, key Key) ([]byte, time.Time, error) {
	return get2(e.byEngine, q, func(s Leases) ([]byte, time.Time, error) { return s.Get(ctx, q, key) })
}

func (e leaseEngines) RenewedAt(ctx context.Context, q Querier, key Key) (time.Time, error) {
	return get(e.byEngine, q, func(s Leases) (time.Time, error) { return s.RenewedAt(ctx, q, key) })
}

func (e leaseEngines) Upsert(ctx context.Context, x Execer, l Lease) error {
	return run(e.byEngine, x, func(s Leases) error { return s.Upsert(ctx, x, l) })
}

func (e leaseEngines) List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Leases) ([][]byte, int64, error) { return s.List(ctx, q, namespace) })
}

func (e leaseEngines) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Leases) ([][]byte, int64, error) { return s.After(ctx, q, after, limit) })
}

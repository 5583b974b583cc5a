package viewstore

import (
	"context"

	"herd/events"
)

// DeviceBindingRow is a row of the device binding view: a device name,
// the address it is bound to ("" once unbound: the row stays, so that
// its stream's version outlives the binding), the number of events it
// reflects, the log position of the last one, and the binding in JSON.
type DeviceBindingRow struct {
	Name, Address            string
	Version, ResourceVersion int64
	Data                     []byte
}

// DeviceBindings is the device binding view's table, keyed by name, on
// one engine or on whichever a handle is of (NewDeviceBindings). Its rows
// are never deleted.
type DeviceBindings interface {
	// Get is the data of the name's row, bound or not, or ErrNoRow.
	Get(ctx context.Context, q Querier, name string) ([]byte, error)
	// Upsert writes r in place of the row of its name.
	Upsert(ctx context.Context, x Execer, r DeviceBindingRow) error
	// Bound is the data of every name bound to an address, in name order
	// (bytewise).
	Bound(ctx context.Context, q Querier) ([][]byte, error)
	// BoundTo is the data of every name bound to address, in name order
	// (bytewise); address "" (unbound) has none.
	BoundTo(ctx context.Context, q Querier, address string) ([][]byte, error)
}

// deviceBindingSchema is the device binding view's table.
var deviceBindingSchema = Schema{
	Table:   "device_bindings",
	Keys:    []string{"name"},
	Columns: []string{"address", "version", "resource_version", "data"},
}

// The device binding view's reads of several rows, with "?" markers.
const (
	deviceBoundSQL   = `SELECT data FROM device_bindings WHERE address <> '' ORDER BY name`
	deviceBoundToSQL = `SELECT data FROM device_bindings WHERE address = ? ORDER BY name`
)

// deviceBindingStore is the device binding view in one engine, shaped by
// its dialect as objectStore is.
type deviceBindingStore struct {
	// get, upsert, bound and boundTo are the table's statements; the
	// upsert keeps its "?" markers, as every write does.
	get, upsert, bound, boundTo string
}

// NewSQLiteDeviceBindings is the device binding view in SQLite.
func NewSQLiteDeviceBindings() DeviceBindings {
	return newDeviceBindingStore(events.EngineSQLite.Dialect())
}

// NewPostgresDeviceBindings is the device binding view in PostgreSQL.
func NewPostgresDeviceBindings() DeviceBindings {
	return newDeviceBindingStore(events.EnginePostgres.Dialect())
}

func newDeviceBindingStore(d events.Dialect) *deviceBindingStore {
	return &deviceBindingStore{
		get:     d.Bind(deviceBindingSchema.getSQL("data")),
		upsert:  deviceBindingSchema.upsertSQL(),
		bound:   d.Bind(deviceBoundSQL),
		boundTo: d.Bind(deviceBoundToSQL),
	}
}

func (s *deviceBindingStore) Get(ctx context.Context, q Querier, name string) ([]byte, error) {
	return getData(ctx, q, deviceBindingSchema.Table, s.get, name)
}

func (s *deviceBindingStore) Upsert(ctx context.Context, x Execer, r DeviceBindingRow) error {
	return exec(ctx, x, deviceBindingSchema.Table, s.upsert, r.Name, r.Address, r.Version, r.ResourceVersion, r.Data)
}

func (s *deviceBindingStore) Bound(ctx context.Context, q Querier) ([][]byte, error) {
	return allData(ctx, q, deviceBindingSchema.Table, s.bound)
}

func (s *deviceBindingStore) BoundTo(ctx context.Context, q Querier, address string) ([][]byte, error) {
	if address == "" {
		return nil, nil
	}
	return allData(ctx, q, deviceBindingSchema.Table, s.boundTo, address)
}

// NewDeviceBindings is the device binding view on whichever engine each
// handle it is given is of, as New is for an object table.
func NewDeviceBindings() DeviceBindings {
	return deviceBindingEngines{byEngine[DeviceBindings]{sqlite: NewSQLiteDeviceBindings(), postgres: NewPostgresDeviceBindings()}}
}

// deviceBindingEngines picks the device binding view of a handle's engine.
type deviceBindingEngines struct{ byEngine[DeviceBindings] }

func (e deviceBindingEngines) Get(ctx context.Context, q Querier, name string) ([]byte, error) {
	return get(e.byEngine, q, func(s DeviceBindings) ([]byte, error) { return s.Get(ctx, q, name) })
}

func (e deviceBindingEngines) Upsert(ctx context.Context, x Execer, r DeviceBindingRow) error {
	return run(e.byEngine, x, func(s DeviceBindings) error { return s.Upsert(ctx, x, r) })
}

func (e deviceBindingEngines) Bound(ctx context.Context, q Querier) ([][]byte, error) {
	return get(e.byEngine, q, func(s DeviceBindings) ([][]byte, error) { return s.Bound(ctx, q) })
}

func (e deviceBindingEngines) BoundTo(ctx context.Context, q Querier, address string) ([][]byte, error) {
	return get(e.byEngine, q, func(s DeviceBindings) ([][]byte, error) { return s.BoundTo(ctx, q, address) })
}

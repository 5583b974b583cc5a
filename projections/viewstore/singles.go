package viewstore

import (
	"context"

	"herd/events"
)

// SingleRow is the one row of a view that holds a single stream's state
// (the fleet's health, the kubelet targets): the number of events it
// reflects, the log position it was written at, and the state in JSON.
type SingleRow struct {
	Version, ResourceVersion int64
	Data                     []byte
}

// Single is a view table of one row, on one engine or on whichever a
// handle is of (NewSingle): a table keyed by name, with version,
// resource_version and data, of which the view keeps the row of one
// name.
type Single interface {
	// Get is the row's data, or ErrNoRow before its first write.
	Get(ctx context.Context, q Querier) ([]byte, error)
	// Upsert writes r in place of the row.
	Upsert(ctx context.Context, x Execer, r SingleRow) error
	// AtHead is the row's data — nil before its first write — and the
	// log's head, read in one statement.
	AtHead(ctx context.Context, q Querier) ([]byte, int64, error)
}

// singleStore is a one-row table in one engine, shaped by its dialect
// as objectStore is.
type singleStore struct {
	table, name       string
	d                 events.Dialect
	get, upsert, head string
}

// singleSchema is the schema of a one-row table.
func singleSchema(table string) Schema {
	return Schema{Table: table, Keys: []string{"name"}, Columns: []string{"version", "resource_version", "data"}}
}

// NewSQLiteSingle is the row named name of table in SQLite.
func NewSQLiteSingle(table, name string) Single {
	return newSingleStore(table, name, events.EngineSQLite.Dialect())
}

// NewPostgresSingle is the row named name of table in PostgreSQL.
func NewPostgresSingle(table, name string) Single {
	return newSingleStore(table, name, events.EnginePostgres.Dialect())
}

func newSingleStore(table, name string, d events.Dialect) *singleStore {
	s := singleSchema(table)
	return &singleStore{
		table:  table,
		name:   name,
		d:      d,
		get:    d.Bind(s.getSQL("data")),
		upsert: s.upsertSQL(),
		head:   d.Bind(d.AtHead(table + " r ON r.name = ?")),
	}
}

func (s *singleStore) Get(ctx context.Context, q Querier) ([]byte, error) {
	return getData(ctx, q, s.table, s.get, s.name)
}

func (s *singleStore) Upsert(ctx context.Context, x Execer, r SingleRow) error {
	return exec(ctx, x, s.table, s.upsert, s.name, r.Version, r.ResourceVersion, r.Data)
}

func (s *singleStore) AtHead(ctx context.Context, q Querier) ([]byte, int64, error) {
	data, head, err := dataAtHead(ctx, q, s.head, s.name)
	if err != nil || len(data) == 0 {
		return nil, head, err
	}
	return data[0], head, nil
}

// NewSingle is the row named name of table on whichever engine each
// handle it is given is of, as New is for an object table.
func NewSingle(table, name string) Single {
	return singleEngines{byEngine[Single]{sqlite: NewSQLiteSingle(table, name), postgres: NewPostgresSingle(table, name)}}
}

// singleEngines picks the one-row table of a handle's engine.
type singleEngines struct{ byEngine[Single] }

func (e singleEngines) Get(ctx context.Context, q Querier) ([]byte, error) {
	return get(e.byEngine, q, func(s Single) ([]byte, error) { return s.Get(ctx, q) })
}

func (e singleEngines) Upsert(ctx context.Context, x Execer, r SingleRow) error {
	return run(e.byEngine, x, func(s Single) error { return s.Upsert(ctx, x, r) })
}

func (e singleEngines) AtHead(ctx context.Context, q Querier) ([]byte, int64, error) {
	return get2(e.byEngine, q, func(s Single) ([]byte, int64, error) { return s.AtHead(ctx, q) })
}

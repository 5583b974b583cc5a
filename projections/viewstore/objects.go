package viewstore

import (
	"context"
	"fmt"

	"herd/events"
)

// objectStore is an object table in one engine, whose differences its
// dialect carries: reads are bound once, here ("?" for SQLite, "$1"… for
// PostgreSQL); arguments go through the dialect (a flag is a Go bool on
// SQLite and the 0 or 1 of a smallint on PostgreSQL, no limit is -1 or
// NULL); the head is the engine's, agreeing with the statement's
// snapshot. Writes keep "?" markers: they are handed to the unit of
// work's execers, which gather a rebuild's rows into many-row inserts
// before binding them (events.Dialect.Bind).
type objectStore struct {
	table      string
	controller bool
	d          events.Dialect
	// get, upsert, del, in, list and after are the table's statements.
	get, upsert, del, in, list, after string
}

// NewSQLite is the object table of s in SQLite. It panics when s is not
// an object table (Objects).
func NewSQLite(s Schema) Store { return newObjectStore(s, events.EngineSQLite.Dialect()) }

// NewPostgres is the object table of s in PostgreSQL. It panics when s
// is not an object table (Objects).
func NewPostgres(s Schema) Store { return newObjectStore(s, events.EnginePostgres.Dialect()) }

func newObjectStore(s Schema, d events.Dialect) *objectStore {
	return &objectStore{
		table:      s.Table,
		controller: controlled(s),
		d:          d,
		get:        d.Bind(s.getSQL("data")),
		upsert:     s.upsertSQL(),
		del:        s.deleteSQL(),
		in:         d.Bind(inSQL(s.Table)),
		list:       d.Bind(d.AtHead(listFrom(s.Table))),
		after:      d.Bind(s.rowsAtHeadSQL(d)),
	}
}

func (s *objectStore) Get(ctx context.Context, q Querier, key Key) ([]byte, error) {
	return getData(ctx, q, s.table, s.get, key.Namespace, key.Name)
}

func (s *objectStore) Upsert(ctx context.Context, x Execer, r Row) error {
	if s.controller {
		return exec(ctx, x, s.table, s.upsert, s.d.Args([]any{r.Namespace, r.Name, r.Deleted, r.Version, r.ResourceVersion, r.Data, r.Controller})...)
	}
	if r.Controller != "" {
		return fmt.Errorf("%s keeps no controller", s.table)
	}
	return exec(ctx, x, s.table, s.upsert, s.d.Args([]any{r.Namespace, r.Name, r.Deleted, r.Version, r.ResourceVersion, r.Data})...)
}

func (s *objectStore) Delete(ctx context.Context, x Execer, key Key) error {
	return exec(ctx, x, s.table, s.del, key.Namespace, key.Name)
}

func (s *objectStore) In(ctx context.Context, q Querier, namespace string) ([][]byte, error) {
	return allData(ctx, q, s.table, s.in, namespace)
}

func (s *objectStore) List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.list, namespace, namespace)
}

func (s *objectStore) Controlled(ctx context.Context, q Querier, namespace string, controllers []string) ([][]byte, int64, error) {
	if !s.controller {
		return nil, 0, fmt.Errorf("%s keeps no controller", s.table)
	}
	if len(controllers) == 0 {
		return nil, 0, fmt.Errorf("%s: %w", s.table, errNoControllers)
	}
	args := make([]any, 0, 1+len(controllers))
	args = append(args, namespace)
	for _, c := range controllers {
		args = append(args, c)
	}
	return dataAtHead(ctx, q, s.d.Bind(s.d.AtHead(controlledFrom(s.table, len(controllers)))), args...)
}

func (s *objectStore) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.after, s.d.Args([]any{after.Namespace, after.Name, events.LimitOf(limit)})...)
}

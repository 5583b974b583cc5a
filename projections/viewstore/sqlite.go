package viewstore

import (
	"context"
	"fmt"

	"herd/events"
)

// sqliteStore is an object table in SQLite: flags are Go bools, which
// the driver stores as 0 or 1, and no limit is -1.
type sqliteStore struct {
	table      string
	controller bool
	d          events.Dialect
	// get, upsert, del, in, list and after are the table's statements.
	get, upsert, del, in, list, after string
}

// NewSQLite is the object table of s in SQLite. It panics when s is not
// an object table (Objects).
func NewSQLite(s Schema) Store {
	d := events.EngineSQLite.Dialect()
	return &sqliteStore{
		table:      s.Table,
		controller: controlled(s),
		d:          d,
		get:        s.GetSQL("data"),
		upsert:     s.UpsertSQL(),
		del:        s.deleteSQL(),
		in:         inSQL(s.Table),
		list:       d.AtHead(listFrom(s.Table)),
		after:      s.RowsAtHeadSQL(d),
	}
}

func (s *sqliteStore) Get(ctx context.Context, q Querier, key Key) ([]byte, error) {
	return getData(ctx, q, s.table, s.get, key.Namespace, key.Name)
}

func (s *sqliteStore) Upsert(ctx context.Context, x Execer, r Row) error {
	if s.controller {
		return exec(ctx, x, s.table, s.upsert, r.Namespace, r.Name, r.Deleted, r.Version, r.ResourceVersion, r.Data, r.Controller)
	}
	if r.Controller != "" {
		return fmt.Errorf("%s keeps no controller", s.table)
	}
	return exec(ctx, x, s.table, s.upsert, r.Namespace, r.Name, r.Deleted, r.Version, r.ResourceVersion, r.Data)
}

func (s *sqliteStore) Delete(ctx context.Context, x Execer, key Key) error {
	return exec(ctx, x, s.table, s.del, key.Namespace, key.Name)
}

func (s *sqliteStore) In(ctx context.Context, q Querier, namespace string) ([][]byte, error) {
	return allData(ctx, q, s.table, s.in, namespace)
}

func (s *sqliteStore) List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.list, namespace, namespace)
}

func (s *sqliteStore) Controlled(ctx context.Context, q Querier, namespace string, controllers []string) ([][]byte, int64, error) {
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
	return dataAtHead(ctx, q, s.d.AtHead(controlledFrom(s.table, len(controllers))), args...)
}

func (s *sqliteStore) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	n := int64(limit)
	if limit <= 0 {
		n = -1
	}
	return dataAtHead(ctx, q, s.after, after.Namespace, after.Name, n)
}

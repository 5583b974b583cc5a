package viewstore

import (
	"context"
	"fmt"

	"herd/events"
)

// postgresStore is an object table in PostgreSQL: its reads are numbered
// ("$1"…) once, here; a flag is the 0 or 1 a smallint keeps; no limit is
// NULL; the head is log_head's, which agrees with the statement's
// snapshot. Its writes keep "?" markers: they are handed to the unit of
// work's execers, which gather a rebuild's rows into many-row inserts
// before binding them (events.Dialect.Bind).
type postgresStore struct {
	table      string
	controller bool
	d          events.Dialect
	// get, upsert, del, in, list and after are the table's statements.
	get, upsert, del, in, list, after string
}

// NewPostgres is the object table of s in PostgreSQL. It panics when s
// is not an object table (Objects).
func NewPostgres(s Schema) Store {
	d := events.EnginePostgres.Dialect()
	return &postgresStore{
		table:      s.Table,
		controller: controlled(s),
		d:          d,
		get:        d.Bind(s.GetSQL("data")),
		upsert:     s.UpsertSQL(),
		del:        s.deleteSQL(),
		in:         d.Bind(inSQL(s.Table)),
		list:       d.Bind(d.AtHead(listFrom(s.Table))),
		after:      d.Bind(s.RowsAtHeadSQL(d)),
	}
}

// flag is b as the smallint PostgreSQL's tables keep a flag in.
func flag(b bool) int16 {
	if b {
		return 1
	}
	return 0
}

func (s *postgresStore) Get(ctx context.Context, q Querier, key Key) ([]byte, error) {
	return getData(ctx, q, s.table, s.get, key.Namespace, key.Name)
}

func (s *postgresStore) Upsert(ctx context.Context, x Execer, r Row) error {
	if s.controller {
		return exec(ctx, x, s.table, s.upsert, r.Namespace, r.Name, flag(r.Deleted), r.Version, r.ResourceVersion, r.Data, r.Controller)
	}
	if r.Controller != "" {
		return fmt.Errorf("%s keeps no controller", s.table)
	}
	return exec(ctx, x, s.table, s.upsert, r.Namespace, r.Name, flag(r.Deleted), r.Version, r.ResourceVersion, r.Data)
}

func (s *postgresStore) Delete(ctx context.Context, x Execer, key Key) error {
	return exec(ctx, x, s.table, s.del, key.Namespace, key.Name)
}

func (s *postgresStore) In(ctx context.Context, q Querier, namespace string) ([][]byte, error) {
	return allData(ctx, q, s.table, s.in, namespace)
}

func (s *postgresStore) List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.list, namespace, namespace)
}

func (s *postgresStore) Controlled(ctx context.Context, q Querier, namespace string, controllers []string) ([][]byte, int64, error) {
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

func (s *postgresStore) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	var n any // NULL: no limit
	if limit > 0 {
		n = int64(limit)
	}
	return dataAtHead(ctx, q, s.after, after.Namespace, after.Name, n)
}

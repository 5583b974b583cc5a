package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// jsonRows describes a namespaced aggregate whose view row is the
// aggregate itself, in JSON, in a table of its own with the columns
// namespace, name, deleted, version, resource_version and data: what a
// kind read and written whole needs (ConfigMaps, ReplicaSets). From it
// come the unit of work's description, the row's loader, and the reads
// of the kind's view; a new such kind is its table's two migrations and a
// jsonRows.
type jsonRows[S any] struct {
	*aggregate[S]
	// table is the view's table; what names an object of it in errors
	// ("replicasets.apps", as kube-apiserver names the resource).
	table, what string
	// row is an object's place and state in its row.
	row func(S) jsonRow
	// upsertSQL and loadSQL are the table's statements.
	upsertSQL, loadSQL string
	// controller, when set, is what an object's controller column says
	// ("Kind/name", "" for none): the table has one (withController).
	controller func(S) string
}

// jsonRow is what a jsonRows table keeps beside an object's JSON.
type jsonRow struct {
	namespace, name   string
	deleted           bool
	version, position int64
}

// describeJSONRows describes the aggregate of with a jsonRows view in
// table: fresh is an object before its first event, evolve the domain's
// fold, row its place and state, and at the object with the log position
// of the last event folded into it.
func describeJSONRows[S any](of *domain.Aggregate, table, what string, fresh func(namespace, name string) S,
	evolve func(S, domain.Event) S, row func(S) jsonRow, at func(S, int64) S) *jsonRows[S] {
	j := &jsonRows[S]{
		table: table, what: what, row: row,
		upsertSQL: `INSERT INTO ` + table + ` (namespace, name, deleted, version, resource_version, data) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, name) DO UPDATE SET deleted = excluded.deleted, version = excluded.version,
  resource_version = excluded.resource_version, data = excluded.data`,
		loadSQL: `SELECT data FROM ` + table + ` WHERE namespace = ? AND name = ?`,
	}
	j.aggregate = describe(&aggregate[S]{
		of: of,
		fresh: func(key string) S {
			namespace, name, _ := strings.Cut(key, "/")
			return fresh(namespace, name)
		},
		load: func(ctx context.Context, q events.Querier, key string) (S, error) {
			namespace, name, _ := strings.Cut(key, "/")
			return j.load(ctx, q, namespace, name)
		},
		version:  func(s S) int64 { return row(s).version },
		position: func(s S) int64 { return row(s).position },
		evolve: func(s S, rec events.Record, ev domain.Event) S {
			return at(evolve(s, ev), rec.Position)
		},
		upsert: func(ctx context.Context, x execer, _ string, s S, _ int64) error {
			r := row(s)
			data, err := json.Marshal(s)
			if err != nil {
				return fmt.Errorf("encode %s %s/%s: %w", what, r.namespace, r.name, err)
			}
			args := []any{r.namespace, r.name, r.deleted, r.version, r.position, data}
			if j.controller != nil {
				args = append(args, j.controller(s))
			}
			if _, err := x.ExecContext(ctx, j.upsertSQL, args...); err != nil {
				return fmt.Errorf("%s view %s/%s: %w", what, r.namespace, r.name, err)
			}
			return nil
		},
		tables: []viewTable{{table, "namespace, name"}},
	})
	return j
}

// withController gives j's table a controller column, which controller
// fills from each object: its controller as "Kind/name", "" for none. The
// table's migration adds the column and its index.
func (j *jsonRows[S]) withController(controller func(S) string) *jsonRows[S] {
	j.controller = controller
	j.upsertSQL = `INSERT INTO ` + j.table + ` (namespace, name, deleted, version, resource_version, data, controller) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, name) DO UPDATE SET deleted = excluded.deleted, version = excluded.version,
  resource_version = excluded.resource_version, data = excluded.data, controller = excluded.controller`
	return j
}

// controlled is the objects of namespace whose controller is one of
// controllers ("Kind/name", "" for none), through the controller index,
// with the log head at the moment of reading.
func (j *jsonRows[S]) controlled(ctx context.Context, db *viewDB, namespace string, controllers []string) ([]S, int64, error) {
	if j.controller == nil {
		return nil, 0, fmt.Errorf("%s: the view keeps no controller", j.what)
	}
	if len(controllers) == 0 {
		return nil, 0, nil
	}
	args := []any{namespace}
	for _, c := range controllers {
		args = append(args, c)
	}
	return viewRows(ctx, db, j.what, j.unmarshal,
		j.table+` r ON r.deleted = 0 AND r.namespace = ? AND r.controller IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(controllers)), ", ")+`) ORDER BY r.namespace, r.name`, args...)
}

// unmarshal rebuilds an object from its stored row.
func (j *jsonRows[S]) unmarshal(data []byte) (S, error) {
	var s S
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("decode %s row: %w", j.what, err)
	}
	return s, nil
}

// load reads an object's row, tombstones included, or domain.ErrNotFound.
func (j *jsonRows[S]) load(ctx context.Context, q events.Querier, namespace, name string) (S, error) {
	data, err := rowData(ctx, q, fmt.Sprintf("%s %q", j.what, name), j.loadSQL, namespace, name)
	if err != nil {
		var zero S
		return zero, err
	}
	return j.unmarshal(data)
}

// get is the object, or domain.ErrNotFound when it does not exist or was
// deleted.
func (j *jsonRows[S]) get(ctx context.Context, db *viewDB, namespace, name string) (S, error) {
	s, err := j.load(ctx, db, namespace, name)
	if err == nil && j.row(s).deleted {
		var zero S
		return zero, fmt.Errorf("%s %q: %w", j.what, name, domain.ErrNotFound)
	}
	return s, err
}

// list is the objects of a namespace — of every namespace when namespace
// is "" — ordered by namespace and name, with the log head at the moment
// of reading (the list's resourceVersion), from one statement.
func (j *jsonRows[S]) list(ctx context.Context, db *viewDB, namespace string) ([]S, int64, error) {
	return viewRows(ctx, db, j.what, j.unmarshal,
		j.table+` r ON r.deleted = 0 AND (? = '' OR r.namespace = ?) ORDER BY r.namespace, r.name`, namespace, namespace)
}

// rows is up to limit objects whose keys ("namespace/name") sort after
// after, in key order, tombstones included, and the log head at the
// moment of reading; limit 0 or less means all of them.
func (j *jsonRows[S]) rows(ctx context.Context, db *viewDB, after string, limit int) ([]S, int64, error) {
	return viewRows(ctx, db, j.what, j.unmarshal, namespacedRowsFrom(j.table), namespacedRowsArgs(after, limit)...)
}

package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// jsonRows describes a namespaced aggregate whose view row is the
// aggregate itself, in JSON, in a table of its own with the columns
// namespace, name, deleted, version, resource_version and data: what a
// kind read and written whole needs (ConfigMaps, ReplicaSets). From it
// come the unit of work's description, the row's loader, and the reads
// of the kind's view, and its table, made from its description
// (viewstore.ObjectTable) when the views migrate: a new such kind is a
// jsonRows and no migration.
type jsonRows[S any] struct {
	*aggregate[S]
	// table is the view's table; what names an object of it in errors
	// ("replicasets.apps", as kube-apiserver names the resource).
	table, what string
	// row is an object's place and state in its row.
	row func(S) jsonRow
	// store is the table behind the views' storage port, on whichever
	// engine a handle is of.
	store viewstore.Store
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
		store: viewstore.New(describeTable(viewstore.ObjectTable(table, false))),
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
			data, err := domain.EncodeJSON(s)
			if err != nil {
				return fmt.Errorf("encode %s %s/%s: %w", what, r.namespace, r.name, err)
			}
			vr := viewstore.Row{
				Key:     viewstore.Key{Namespace: r.namespace, Name: r.name},
				Deleted: r.deleted, Version: r.version, ResourceVersion: r.position, Data: data,
			}
			if j.controller != nil {
				vr.Controller = j.controller(s)
			}
			if err := j.store.Upsert(ctx, x, vr); err != nil {
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
// table's description has the column and its index (the views' migration
// adds them to a table an older herd made).
func (j *jsonRows[S]) withController(controller func(S) string) *jsonRows[S] {
	j.controller = controller
	j.store = viewstore.New(describeTable(viewstore.ObjectTable(j.table, true)))
	return j
}

// controlled is the objects of namespace whose controller is one of
// controllers ("Kind/name", "" for none), through the controller index,
// with the log head at the moment of reading.
func (j *jsonRows[S]) controlled(ctx context.Context, q viewstore.Querier, namespace string, controllers []string) ([]S, int64, error) {
	if j.controller == nil {
		return nil, 0, fmt.Errorf("%s: the view keeps no controller", j.what)
	}
	if len(controllers) == 0 {
		return nil, 0, nil
	}
	return j.decodeAtHead(j.store.Controlled(ctx, q, namespace, controllers))
}

// unmarshal rebuilds an object from its stored row.
func (j *jsonRows[S]) unmarshal(data []byte) (S, error) {
	var s S
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("decode %s row: %w", j.what, err)
	}
	return s, nil
}

// decodeAtHead rebuilds the objects of rows read at the log's head.
func (j *jsonRows[S]) decodeAtHead(data [][]byte, head int64, err error) ([]S, int64, error) {
	if err != nil {
		return nil, 0, fmt.Errorf("%s rows: %w", j.what, err)
	}
	out := make([]S, 0, len(data))
	for _, d := range data {
		s, err := j.unmarshal(d)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, s)
	}
	return out, head, nil
}

// load reads an object's row, tombstones included, or domain.ErrNotFound.
func (j *jsonRows[S]) load(ctx context.Context, q viewstore.Querier, namespace, name string) (S, error) {
	var zero S
	data, err := j.store.Get(ctx, q, viewstore.Key{Namespace: namespace, Name: name})
	switch {
	case errors.Is(err, viewstore.ErrNoRow):
		return zero, fmt.Errorf("%s %q: %w", j.what, name, domain.ErrNotFound)
	case err != nil:
		return zero, fmt.Errorf("load %s %q: %w", j.what, name, err)
	}
	return j.unmarshal(data)
}

// get is the object, or domain.ErrNotFound when it does not exist or was
// deleted.
func (j *jsonRows[S]) get(ctx context.Context, q viewstore.Querier, namespace, name string) (S, error) {
	s, err := j.load(ctx, q, namespace, name)
	if err == nil && j.row(s).deleted {
		var zero S
		return zero, fmt.Errorf("%s %q: %w", j.what, name, domain.ErrNotFound)
	}
	return s, err
}

// list is the objects of a namespace — of every namespace when namespace
// is "" — ordered by namespace and name, with the log head at the moment
// of reading (the list's resourceVersion), from one statement.
func (j *jsonRows[S]) list(ctx context.Context, q viewstore.Querier, namespace string) ([]S, int64, error) {
	return j.decodeAtHead(j.store.List(ctx, q, namespace))
}

// rows is up to limit objects whose keys ("namespace/name") sort after
// after, in key order, tombstones included, and the log head at the
// moment of reading; limit 0 or less means all of them. Namespaces and
// names are DNS labels and subdomains, with no "/" in either, so
// "namespace/name" orders as (namespace, name) does.
func (j *jsonRows[S]) rows(ctx context.Context, q viewstore.Querier, after string, limit int) ([]S, int64, error) {
	ns, name, _ := strings.Cut(after, "/")
	return j.decodeAtHead(j.store.After(ctx, q, viewstore.Key{Namespace: ns, Name: name}, limit))
}

// describeObjectRows is describeJSONRows for a kind on the object model
// whose state is its domain.Object: an object before its first event is
// its namespace and name, its row its place and state.
func describeObjectRows[S domain.Spec[S, St], St any](of *domain.Aggregate, table, what string,
	evolve func(domain.Object[S, St], domain.Event) domain.Object[S, St]) *jsonRows[domain.Object[S, St]] {
	return describeJSONRows(of, table, what,
		func(namespace, name string) domain.Object[S, St] {
			return domain.Object[S, St]{ObjectMeta: domain.ObjectMeta{Namespace: namespace, Name: name}}
		},
		evolve,
		func(o domain.Object[S, St]) jsonRow {
			return jsonRow{namespace: o.Namespace, name: o.Name, deleted: o.Deleted, version: o.Version, position: o.ResourceVersion}
		},
		func(o domain.Object[S, St], position int64) domain.Object[S, St] {
			o.ResourceVersion = position
			return o
		},
	)
}

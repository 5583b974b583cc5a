// Package viewstore is the storage port of the views of the object
// model's kinds (ReplicaSets, Deployments, DaemonSets, Jobs,
// PodDisruptionBudgets, ConfigMaps, StatefulSets, CronJobs,
// ControllerRevisions): what their view code asks of a table — a row by
// key, an upsert, the rows after a key, a namespace's rows, the rows
// whose controller is one of some, each read of several rows together
// with the log's head — as one interface, Store, with one implementation
// per engine (NewSQLite, NewPostgres); and of the lease view, whose rows
// keep herd's time of a lease's newest renewal beside its data, as
// Leases, Store's shape where a lease's row differs (NewSQLiteLeases,
// NewPostgresLeases); of the node timeline, rows added in log order
// and read by ranges of it, as Timeline (NewSQLiteTimeline,
// NewPostgresTimeline); of the pod view, whose rows keep the columns its
// lists filter on beside the data, as Pods (NewSQLitePods,
// NewPostgresPods); of the node view, a node's cold and hot rows
// written apart and read as one, as Nodes (NewSQLiteNodes,
// NewPostgresNodes); of a view of one stream's state in one row (the
// fleet's health, the kubelet targets), as Single (NewSQLiteSingle,
// NewPostgresSingle); of the IP address views, a pool's row and
// the rows of its addresses in use, as Addresses (NewSQLiteAddresses,
// NewPostgresAddresses); of the namespace view, as Namespaces
// (NewSQLiteNamespaces, NewPostgresNamespaces); and of the device
// binding view, a device name's row with the address it is bound to, as
// DeviceBindings (NewSQLiteDeviceBindings, NewPostgresDeviceBindings).
// Beside them it holds the views' other statements: their pool (DB),
// SQLite's upgrades of rows an older herd wrote (UpgradeOnce), a
// rebuild's (Empty, Checkpoint, DropIndexes, Batches...) and replay
// --verify's (FirstDifference, ScratchTables). Only this package holds
// the tables' SQL and database/sql's types; the views hand the port the
// handle a statement runs on (the views' pool or the unit of work's
// transaction) and get rows' data back. See the architecture note, "One
// SQL for both engines".
package viewstore

import (
	"context"
	"errors"
	"fmt"

	"herd/events"
)

// Key is a row's place: its namespace and name.
type Key struct{ Namespace, Name string }

// Row is an object's row: its place, whether it is a tombstone, the
// number of events it reflects, the log position of the last one, the
// object in JSON, and, in a table that keeps one, its controller
// ("Kind/name", "" for none).
type Row struct {
	Key
	Deleted                  bool
	Version, ResourceVersion int64
	Data                     []byte
	Controller               string
}

// Execer is where a store's writes run: the unit of work's transaction,
// a prepared write's recorder, or a rebuild's batches, each in its
// engine's dialect.
type Execer = events.Execer

// Querier is where a store's reads run: the views' pool or the unit of
// work's transaction. A store reads through a Querier that tells its
// engine's dialect (Dialect() events.Dialect), as every handle of the
// views does.
type Querier = events.Querier

// ErrNoRow answers Get for a key with no row, tombstone or not.
var ErrNoRow = errors.New("no row")

// Store is one object table of the views, on one engine or on whichever
// a handle is of (New). Reads that end in "at head" return the log's
// head read in the same statement as the rows, so that the rows are as
// the log left them at that head (a list and its resourceVersion agree);
// the head comes back even when no row does.
type Store interface {
	// Get is the data of the row at key, tombstone or not, or ErrNoRow.
	Get(ctx context.Context, q Querier, key Key) ([]byte, error)
	// Upsert writes r in place of the row at its key.
	Upsert(ctx context.Context, x Execer, r Row) error
	// Delete removes the row at key; a key with no row is no error.
	Delete(ctx context.Context, x Execer, key Key) error
	// In is the data of namespace's rows, tombstones left out, in name
	// order, without the head: what a unit of work reads inside its
	// transaction.
	In(ctx context.Context, q Querier, namespace string) ([][]byte, error)
	// List is the data of namespace's rows — every namespace's when it
	// is "" — tombstones left out, in key order, at head.
	List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error)
	// Controlled is the data of namespace's rows whose controller is one
	// of controllers ("" for none), tombstones left out, in key order, at
	// head. It needs a table that keeps controllers and at least one
	// controller.
	Controlled(ctx context.Context, q Querier, namespace string, controllers []string) ([][]byte, int64, error)
	// After is the data of up to limit rows whose keys sort after
	// after's, in key order (bytewise), tombstones included, at head;
	// limit 0 or less means all of them.
	After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error)
}

// Objects is the schema of an object table (ObjectTable): keyed by
// namespace and name, with the tombstone flag, version, resourceVersion
// and data, and, with controller, the controller column.
func Objects(table string, controller bool) Schema {
	return ObjectTable(table, controller).Schema()
}

// controlled says whether s is an object table that keeps controllers,
// and panics when it is no object table: stores are made once, at
// start, from a kind's description.
func controlled(s Schema) bool {
	plain := Objects(s.Table, false)
	with := Objects(s.Table, true)
	switch {
	case same(s, plain):
		return false
	case same(s, with):
		return true
	}
	panic(fmt.Sprintf("viewstore: %s is not an object table (%v, %v)", s.Table, s.Keys, s.Columns))
}

func same(a, b Schema) bool {
	return a.Table == b.Table && fmt.Sprint(a.Keys) == fmt.Sprint(b.Keys) && fmt.Sprint(a.Columns) == fmt.Sprint(b.Columns)
}

// New is the table of s on whichever engine each handle it is given is
// of: the engine's implementation answers. A handle that does not tell
// its dialect is refused, rather than guessed.
func New(s Schema) Store {
	return engines{byEngine[Store]{sqlite: NewSQLite(s), postgres: NewPostgres(s)}}
}

// byEngine holds one implementation of a port per engine and picks the
// one of a handle's engine: New, NewLeases, NewTimeline, NewAddresses,
// NewPods, NewNodes, NewSingle, NewNamespaces and NewDeviceBindings
// answer through it.
type byEngine[T any] struct{ sqlite, postgres T }

func (e byEngine[T]) on(h any) (T, error) {
	pg, err := onPostgres(h)
	if err != nil {
		var none T
		return none, err
	}
	if pg {
		return e.postgres, nil
	}
	return e.sqlite, nil
}

// run, get and get2 are how a store on whichever engine a handle is of
// answers each method of its port: by the implementation of h's engine,
// or with the error that h does not tell its engine. Each method is one
// line that names what it calls; run is for a write, get for a read of
// one value, get2 for a read of two (rows and the head they are read at).
func run[T any](e byEngine[T], h any, write func(T) error) error {
	s, err := e.on(h)
	if err != nil {
		return err
	}
	return write(s)
}

func get[T, R any](e byEngine[T], h any, read func(T) (R, error)) (R, error) {
	s, err := e.on(h)
	if err != nil {
		var none R
		return none, err
	}
	return read(s)
}

func get2[T, R, R2 any](e byEngine[T], h any, read func(T) (R, R2, error)) (R, R2, error) {
	s, err := e.on(h)
	if err != nil {
		var none R
		var none2 R2
		return none, none2, err
	}
	return read(s)
}

// engines picks the object table of a handle's engine.
type engines struct{ byEngine[Store] }

// dialected is a handle that tells its engine's dialect.
type dialected interface{ Dialect() events.Dialect }

// onPostgres says whether handle h is of PostgreSQL, and refuses one that
// does not tell its engine.
func onPostgres(h any) (bool, error) {
	d, ok := h.(dialected)
	if !ok {
		return false, fmt.Errorf("viewstore: %T does not tell its engine", h)
	}
	return d.Dialect().Engine() == events.EnginePostgres, nil
}

func (e engines) Get(ctx context.Context, q Querier, key Key) ([]byte, error) {
	return get(e.byEngine, q, func(s Store) ([]byte, error) { return s.Get(ctx, q, key) })
}

func (e engines) Upsert(ctx context.Context, x Execer, r Row) error {
	return run(e.byEngine, x, func(s Store) error { return s.Upsert(ctx, x, r) })
}

func (e engines) Delete(ctx context.Context, x Execer, key Key) error {
	return run(e.byEngine, x, func(s Store) error { return s.Delete(ctx, x, key) })
}

func (e engines) In(ctx context.Context, q Querier, namespace string) ([][]byte, error) {
	return get(e.byEngine, q, func(s Store) ([][]byte, error) { return s.In(ctx, q, namespace) })
}

func (e engines) List(ctx context.Context, q Querier, namespace string) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Store) ([][]byte, int64, error) { return s.List(ctx, q, namespace) })
}

func (e engines) Controlled(ctx context.Context, q Querier, namespace string, controllers []string) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Store) ([][]byte, int64, error) { return s.Controlled(ctx, q, namespace, controllers) })
}

func (e engines) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Store) ([][]byte, int64, error) { return s.After(ctx, q, after, limit) })
}

package viewstore

import (
	"context"

	"herd/events"
)

// NamespaceRow is a row of the namespace view: a namespace's name,
// whether it is a tombstone (a deleted namespace keeps its row, so that
// its stream's version outlives it), the number of events it reflects,
// the log position of the last one, and the namespace in JSON.
type NamespaceRow struct {
	Name                     string
	Deleted                  bool
	Version, ResourceVersion int64
	Data                     []byte
}

// Namespaces is the namespace view's table, keyed by name, on one engine
// or on whichever a handle is of (NewNamespaces). Its rows are never
// deleted. Reads at head are as Store's.
type Namespaces interface {
	// Get is the data of the namespace's row, tombstone or not, or
	// ErrNoRow.
	Get(ctx context.Context, q Querier, name string) ([]byte, error)
	// Upsert writes r in place of the row of its name.
	Upsert(ctx context.Context, x Execer, r NamespaceRow) error
	// List is the data of every namespace not deleted, in name order, at
	// head.
	List(ctx context.Context, q Querier) ([][]byte, int64, error)
	// After is the data of up to limit namespaces whose names sort after
	// after, in name order (bytewise), tombstones included, at head;
	// limit 0 or less means all of them.
	After(ctx context.Context, q Querier, after string, limit int) ([][]byte, int64, error)
	// InUse names the namespaces that hold a live pod or ConfigMap and
	// of which the view has no live row, in order: objects created
	// before herd kept namespaces, or pods a kubelet runs in a namespace
	// no one created in herd — what herd's start creates.
	InUse(ctx context.Context, q Querier) ([]string, error)
}

// namespaceSchema is the namespace view's table.
var namespaceSchema = Schema{
	Table:   "namespaces",
	Keys:    []string{"name"},
	Columns: []string{"deleted", "version", "resource_version", "data"},
}

// namespaceListFrom is what List joins to the log's head.
const namespaceListFrom = `namespaces r ON r.deleted = 0 ORDER BY r.name`

// namespacesInUseSQL is the namespaces that hold a live pod or ConfigMap
// and have no live row of their own, in name order; the same statement
// on both engines (it binds nothing).
const namespacesInUseSQL = `SELECT namespace FROM pods WHERE finalized = 0
UNION SELECT namespace FROM configmaps WHERE deleted = 0
EXCEPT SELECT name FROM namespaces WHERE deleted = 0
ORDER BY 1`

// namespaceStore is the namespace view in one engine, shaped by its
// dialect as objectStore is.
type namespaceStore struct {
	d events.Dialect
	// get, upsert, list and after are the table's statements; the upsert
	// keeps its "?" markers, as every write does.
	get, upsert, list, after string
}

// NewSQLiteNamespaces is the namespace view in SQLite.
func NewSQLiteNamespaces() Namespaces { return newNamespaceStore(events.EngineSQLite.Dialect()) }

// NewPostgresNamespaces is the namespace view in PostgreSQL.
func NewPostgresNamespaces() Namespaces { return newNamespaceStore(events.EnginePostgres.Dialect()) }

func newNamespaceStore(d events.Dialect) *namespaceStore {
	return &namespaceStore{
		d:      d,
		get:    d.Bind(namespaceSchema.getSQL("data")),
		upsert: namespaceSchema.upsertSQL(),
		list:   d.Bind(d.AtHead(namespaceListFrom)),
		after:  d.Bind(namespaceSchema.rowsAtHeadSQL(d)),
	}
}

func (s *namespaceStore) Get(ctx context.Context, q Querier, name string) ([]byte, error) {
	return getData(ctx, q, namespaceSchema.Table, s.get, name)
}

func (s *namespaceStore) Upsert(ctx context.Context, x Execer, r NamespaceRow) error {
	return exec(ctx, x, namespaceSchema.Table, s.upsert, s.d.Args([]any{r.Name, r.Deleted, r.Version, r.ResourceVersion, r.Data})...)
}

func (s *namespaceStore) List(ctx context.Context, q Querier) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.list)
}

func (s *namespaceStore) After(ctx context.Context, q Querier, after string, limit int) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.after, s.d.Args([]any{after, events.LimitOf(limit)})...)
}

func (s *namespaceStore) InUse(ctx context.Context, q Querier) ([]string, error) {
	return allNames(ctx, q, "namespaces in use", namespacesInUseSQL)
}

// NewNamespaces is the namespace view on whichever engine each handle it
// is given is of, as New is for an object table.
func NewNamespaces() Namespaces {
	return namespaceEngines{byEngine[Namespaces]{sqlite: NewSQLiteNamespaces(), postgres: NewPostgresNamespaces()}}
}

// namespaceEngines picks the namespace view of a handle's engine.
type namespaceEngines struct{ byEngine[Namespaces] }

func (e namespaceEngines) Get(ctx context.Context, q Querier, name string) ([]byte, error) {
	return get(e.byEngine, q, func(s Namespaces) ([]byte, error) { return s.Get(ctx, q, name) })
}

func (e namespaceEngines) Upsert(ctx context.Context, x Execer, r NamespaceRow) error {
	return run(e.byEngine, x, func(s Namespaces) error { return s.Upsert(ctx, x, r) })
}

func (e namespaceEngines) List(ctx context.Context, q Querier) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Namespaces) ([][]byte, int64, error) { return s.List(ctx, q) })
}

func (e namespaceEngines) After(ctx context.Context, q Querier, after string, limit int) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Namespaces) ([][]byte, int64, error) { return s.After(ctx, q, after, limit) })
}

func (e namespaceEngines) InUse(ctx context.Context, q Querier) ([]string, error) {
	return get(e.byEngine, q, func(s Namespaces) ([]string, error) { return s.InUse(ctx, q) })
}

package viewstore

import (
	"context"
	"strings"
	"sync"

	"herd/events"
)

// PodRow is a row of the pod view: the pod's place, the columns its
// lists filter on (its uid, the node it is bound to, "" for none, its
// phase, whether it is being deleted, whether it is finalized — a
// tombstone — its source, "" for herd's own, and its controller,
// "Kind/name" or "" for none), the number of events it reflects, the log
// position of the last one, and the pod in JSON.
type PodRow struct {
	Key
	UID, NodeName, Phase, Source, Controller string
	Terminating, Finalized                   bool
	Version, ResourceVersion                 int64
	Data                                     []byte
}

// PodFilter narrows a list of the pods not finalized. Zero values do not
// filter.
type PodFilter struct {
	// Namespace keeps the pods of one namespace.
	Namespace string
	// NodeName keeps the pods bound to one node; Unbound, which wins
	// over it, keeps the pods bound to none.
	NodeName string
	Unbound  bool
	// Phase keeps the pods in one phase.
	Phase string
	// BySource keeps the pods of Source alone ("" is herd's own, so the
	// flag says whether Source filters).
	BySource bool
	Source   string
	// Terminating keeps only the pods being deleted.
	Terminating bool
	// Controllers, when not nil, keeps the pods whose controller is one
	// of these ("" for the pods without one); an empty, non-nil list
	// keeps none. The pods_by_controller index answers it.
	Controllers []string
}

// Pods is the pod view's table, on one engine or on whichever a handle
// is of (NewPods). Its rows are never deleted: a finalized pod is a
// tombstone until a rebuild. Reads at head are as Store's.
type Pods interface {
	// Get is the data of the pod at key, finalized or not, or ErrNoRow.
	Get(ctx context.Context, q Querier, key Key) ([]byte, error)
	// Upsert writes r in place of the row at its key.
	Upsert(ctx context.Context, x Execer, r PodRow) error
	// List is the data of the pods not finalized that f keeps, in key
	// order, at head.
	List(ctx context.Context, q Querier, f PodFilter) ([][]byte, int64, error)
	// After is Store.After of the pods: up to limit rows after after's
	// key, finalized ones included, at head; limit 0 or less means all.
	After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error)
	// BoundNodes names, in order and once each, the nodes that source's
	// pods not finalized are bound to.
	BoundNodes(ctx context.Context, q Querier, source string) ([]string, error)
	// BoundNodesGone is BoundNodes less the nodes the node view holds
	// and has not deleted: the nodes that source's live pods are bound
	// to but that are deleted or were never registered. It looks up
	// each bound node by its key, so it costs what the pods are bound
	// to, not the fleet.
	BoundNodesGone(ctx context.Context, q Querier, source string) ([]string, error)
}

// podSchema is the pod view's table: keyed by namespace and name, with
// the columns lists filter on beside the data, and the controller last
// (migration 0019 added it).
var podSchema = Schema{
	Table: "pods",
	Keys:  []string{"namespace", "name"},
	Columns: []string{"uid", "node_name", "phase", "terminating", "finalized", "source",
		"version", "resource_version", "data", "controller"},
}

// The pod view's reads of node names, with "?" markers.
const (
	podBoundNodesSQL = `SELECT DISTINCT node_name FROM pods
WHERE finalized = 0 AND source = ? AND node_name <> '' ORDER BY node_name`
	podBoundNodesGoneSQL = `SELECT DISTINCT p.node_name FROM pods p
WHERE p.finalized = 0 AND p.source = ? AND p.node_name <> ''
  AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.name = p.node_name AND n.deleted = 0)
ORDER BY p.node_name`
)

// podStore is the pod table in one engine, shaped by its dialect as
// objectStore is. A list's statement depends on which filters it has and
// how many controllers it names: each such shape is made once and kept.
type podStore struct {
	d                               events.Dialect
	get, upsert, after, bound, gone string

	mu    sync.RWMutex
	lists map[podListShape]string
}

// podListShape is what a list's statement depends on: which of a
// filter's fields are set, and how many controllers it names.
type podListShape struct {
	set         uint8
	controllers int
}

// The fields of a PodFilter a list's statement tests, as podListShape's
// bits.
const (
	podByNamespace uint8 = 1 << iota
	podUnbound
	podByNode
	podByPhase
	podBySource
	podTerminating
	podByControllers
)

// NewSQLitePods is the pod table in SQLite.
func NewSQLitePods() Pods { return newPodStore(events.EngineSQLite.Dialect()) }

// NewPostgresPods is the pod table in PostgreSQL.
func NewPostgresPods() Pods { return newPodStore(events.EnginePostgres.Dialect()) }

func newPodStore(d events.Dialect) *podStore {
	return &podStore{
		d:      d,
		get:    d.Bind(podSchema.getSQL("data")),
		upsert: podSchema.upsertSQL(),
		after:  d.Bind(podSchema.rowsAtHeadSQL(d)),
		bound:  d.Bind(podBoundNodesSQL),
		gone:   d.Bind(podBoundNodesGoneSQL),
		lists:  map[podListShape]string{},
	}
}

func (s *podStore) Get(ctx context.Context, q Querier, key Key) ([]byte, error) {
	return getData(ctx, q, podSchema.Table, s.get, key.Namespace, key.Name)
}

func (s *podStore) Upsert(ctx context.Context, x Execer, r PodRow) error {
	return exec(ctx, x, podSchema.Table, s.upsert, s.d.Args([]any{r.Namespace, r.Name, r.UID, r.NodeName, r.Phase,
		r.Terminating, r.Finalized, r.Source, r.Version, r.ResourceVersion, r.Data, r.Controller})...)
}

func (s *podStore) List(ctx context.Context, q Querier, f PodFilter) ([][]byte, int64, error) {
	var (
		shape podListShape
		args  []any
	)
	if f.Namespace != "" {
		shape.set |= podByNamespace
		args = append(args, f.Namespace)
	}
	switch {
	case f.Unbound:
		shape.set |= podUnbound
	case f.NodeName != "":
		shape.set |= podByNode
		args = append(args, f.NodeName)
	}
	if f.Phase != "" {
		shape.set |= podByPhase
		args = append(args, f.Phase)
	}
	if f.BySource {
		shape.set |= podBySource
		args = append(args, f.Source)
	}
	if f.Terminating {
		shape.set |= podTerminating
	}
	if f.Controllers != nil {
		shape.set |= podByControllers
		shape.controllers = len(f.Controllers)
		for _, c := range f.Controllers {
			args = append(args, c)
		}
	}
	return dataAtHead(ctx, q, s.list(shape), args...)
}

// list is the statement of a list of shape, made on its first use.
func (s *podStore) list(shape podListShape) string {
	s.mu.RLock()
	query, ok := s.lists[shape]
	s.mu.RUnlock()
	if ok {
		return query
	}
	query = s.d.Bind(s.d.AtHead(podListFrom(shape)))
	s.mu.Lock()
	s.lists[shape] = query
	s.mu.Unlock()
	return query
}

// podListFrom is what a list of shape joins to the log's head: the pods
// not finalized that its filters keep, their arguments in the order of
// PodFilter's fields, in key order.
func podListFrom(shape podListShape) string {
	where := []string{"r.finalized = 0"}
	if shape.set&podByNamespace != 0 {
		where = append(where, "r.namespace = ?")
	}
	switch {
	case shape.set&podUnbound != 0:
		where = append(where, "r.node_name = ''")
	case shape.set&podByNode != 0:
		where = append(where, "r.node_name = ?")
	}
	if shape.set&podByPhase != 0 {
		where = append(where, "r.phase = ?")
	}
	if shape.set&podBySource != 0 {
		where = append(where, "r.source = ?")
	}
	if shape.set&podTerminating != 0 {
		where = append(where, "r.terminating = 1")
	}
	switch {
	case shape.set&podByControllers != 0 && shape.controllers == 0:
		// No statement can say IN (): a list of no controllers keeps
		// no pod.
		where = append(where, "1 = 0")
	case shape.set&podByControllers != 0:
		where = append(where, "r.controller IN ("+markers(shape.controllers)+")")
	}
	return podSchema.Table + " r ON " + strings.Join(where, " AND ") + " ORDER BY r.namespace, r.name"
}

func (s *podStore) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	return dataAtHead(ctx, q, s.after, s.d.Args([]any{after.Namespace, after.Name, events.LimitOf(limit)})...)
}

func (s *podStore) BoundNodes(ctx context.Context, q Querier, source string) ([]string, error) {
	return allNames(ctx, q, "pods' nodes", s.bound, source)
}

func (s *podStore) BoundNodesGone(ctx context.Context, q Querier, source string) ([]string, error) {
	return allNames(ctx, q, "pods' gone nodes", s.gone, source)
}

// NewPods is the pod table on whichever engine each handle it is given
// is of, as New is for an object table.
func NewPods() Pods {
	return podEngines{byEngine[Pods]{sqlite: NewSQLitePods(), postgres: NewPostgresPods()}}
}

// podEngines picks the pod table of a handle's engine.
type podEngines struct{ byEngine[Pods] }

func (e podEngines) Get(ctx context.Context, q Querier, key Key) ([]byte, error) {
	return get(e.byEngine, q, func(s Pods) ([]byte, error) { return s.Get(ctx, q, key) })
}

func (e podEngines) Upsert(ctx context.Context, x Execer, r PodRow) error {
	return run(e.byEngine, x, func(s Pods) error { return s.Upsert(ctx, x, r) })
}

func (e podEngines) List(ctx context.Context, q Querier, f PodFilter) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Pods) ([][]byte, int64, error) { return s.List(ctx, q, f) })
}

func (e podEngines) After(ctx context.Context, q Querier, after Key, limit int) ([][]byte, int64, error) {
	return get2(e.byEngine, q, func(s Pods) ([][]byte, int64, error) { return s.After(ctx, q, after, limit) })
}

func (e podEngines) BoundNodes(ctx context.Context, q Querier, source string) ([]string, error) {
	return get(e.byEngine, q, func(s Pods) ([]string, error) { return s.BoundNodes(ctx, q, source) })
}

func (e podEngines) BoundNodesGone(ctx context.Context, q Querier, source string) ([]string, error) {
	return get(e.byEngine, q, func(s Pods) ([]string, error) { return s.BoundNodesGone(ctx, q, source) })
}

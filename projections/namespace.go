package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// namespaces describes the namespace: its row in namespaces.
var namespaces = describe(&aggregate[domain.Namespace]{
	of:       domain.NamespaceAggregate,
	fresh:    func(name string) domain.Namespace { return domain.Namespace{ObjectMeta: domain.ObjectMeta{Name: name}} },
	load:     loadNamespace,
	version:  func(ns domain.Namespace) int64 { return ns.Version },
	position: func(ns domain.Namespace) int64 { return ns.ResourceVersion },
	evolve: func(ns domain.Namespace, rec events.Record, ev domain.Event) domain.Namespace {
		ns = domain.EvolveNamespace(ns, ev)
		ns.ResourceVersion = rec.Position
		return ns
	},
	upsert: func(ctx context.Context, x execer, _ string, ns domain.Namespace, _ int64) error {
		data, err := domain.EncodeJSON(ns)
		if err != nil {
			return fmt.Errorf("encode namespace %s: %w", ns.Name, err)
		}
		if err := namespaceRows.Upsert(ctx, x, viewstore.NamespaceRow{Name: ns.Name, Deleted: ns.Deleted, Version: ns.Version, ResourceVersion: ns.ResourceVersion, Data: data}); err != nil {
			return fmt.Errorf("namespace view %s: %w", ns.Name, err)
		}
		return nil
	},
	tables: []viewTable{{"namespaces", "name"}},
})

// namespaceRows is the namespace view's table behind the views' store
// port, on whichever engine a handle is of.
var namespaceRows = viewstore.NewNamespaces()

func unmarshalNamespace(data []byte) (domain.Namespace, error) {
	var ns domain.Namespace
	if err := json.Unmarshal(data, &ns); err != nil {
		return domain.Namespace{}, fmt.Errorf("decode namespace row: %w", err)
	}
	return ns, nil
}

// loadNamespace reads a namespace's row, tombstones included, or
// domain.ErrNotFound.
func loadNamespace(ctx context.Context, q viewstore.Querier, name string) (domain.Namespace, error) {
	data, err := namespaceRows.Get(ctx, q, name)
	return decodeRow("namespaces", name, data, err, unmarshalNamespace)
}

// decodeNamespaces decodes the rows a read of the namespace view returns
// with the log's head.
var decodeNamespaces = rowsDecoder("namespace rows", unmarshalNamespace)

// NamespaceView answers queries about namespaces from the namespace view.
type NamespaceView struct {
	db *viewstore.DB
}

// NewNamespaceView returns a NamespaceView reading the views beside log.
func NewNamespaceView(log events.Log) *NamespaceView {
	return &NamespaceView{db: viewstore.NewDB(log)}
}

// Get returns the namespace, terminating ones included, or
// domain.ErrNotFound when it does not exist or is gone.
func (v *NamespaceView) Get(ctx context.Context, name string) (domain.Namespace, error) {
	ns, err := loadNamespace(ctx, v.db, name)
	if err == nil && ns.Deleted {
		return domain.Namespace{}, fmt.Errorf("namespaces %q: %w", name, domain.ErrNotFound)
	}
	return ns, err
}

// AcceptsObjects returns nil when objects may be created in the namespace,
// and otherwise domain.ErrNotFound (no such namespace) or
// domain.ErrForbidden (it is terminating), with Kubernetes' messages.
func (v *NamespaceView) AcceptsObjects(ctx context.Context, name string) error {
	ns, err := loadNamespace(ctx, v.db, name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	return domain.NamespaceAcceptsObjects(ns, name)
}

// List returns the namespaces by name, terminating ones included, with the
// log head at the moment of reading, from one statement.
func (v *NamespaceView) List(ctx context.Context) ([]domain.Namespace, int64, error) {
	return decodeNamespaces(namespaceRows.List(ctx, v.db))
}

// Terminating returns the namespaces being deleted.
func (v *NamespaceView) Terminating(ctx context.Context) ([]domain.Namespace, error) {
	all, _, err := v.List(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(ns domain.Namespace) bool { return domain.NamespacePhase(ns) != domain.PhaseTerminating }), nil
}

// Rows returns up to limit namespaces whose names sort after after, in
// name order, tombstones included, and the log head at the moment of
// reading; limit 0 or less means all of them.
func (v *NamespaceView) Rows(ctx context.Context, after string, limit int) ([]domain.Namespace, int64, error) {
	return decodeNamespaces(namespaceRows.After(ctx, v.db, after, limit))
}

// FoldNamespace folds one logged event of a namespace's stream into the
// namespace, as the inline view does: watches and consistent lists use it.
func FoldNamespace(ns domain.Namespace, rec events.Record) (domain.Namespace, error) {
	return namespaces.fold(ns, rec)
}

// ensureAttempts bounds how often EnsureNamespaces decides one namespace
// again after another writer's append won: each conflict means the
// namespace now exists, so the second try settles it.
const ensureAttempts = 3

// EnsureNamespaces creates the namespaces herd needs and has no record of:
// the system namespaces, and every namespace that holds a pod or a
// ConfigMap (objects created before herd kept namespaces, or pods a
// kubelet runs in a namespace no one created in herd). It appends nothing
// when all exist, and returns the names it created.
func (w *Writer) EnsureNamespaces(ctx context.Context, uid func() string) ([]string, error) {
	inUse, err := namespaceRows.InUse(ctx, w.views)
	if err != nil {
		return nil, err
	}
	want := make([]domain.EnsureNamespace, 0, len(domain.SystemNamespaces)+len(inUse))
	for _, name := range domain.SystemNamespaces {
		want = append(want, domain.EnsureNamespace{Name: name, Reason: domain.NamespaceReasonSystem})
	}
	for _, name := range inUse {
		if !slices.Contains(domain.SystemNamespaces, name) {
			want = append(want, domain.EnsureNamespace{Name: name, Reason: domain.NamespaceReasonInUse})
		}
	}
	var created []string
	for _, cmd := range want {
		cmd.UID = uid()
		ns, err := w.NamespaceCommands().Execute(ctx, domain.Key{Name: cmd.Name}, cmd)
		// Replicas starting together on a new database all ensure the
		// same namespaces: the one that loses the race decides again on
		// what the winner wrote, which makes the command a no-op.
		for try := 1; try < ensureAttempts && errors.Is(err, domain.ErrConflict); try++ {
			ns, err = w.NamespaceCommands().Execute(ctx, domain.Key{Name: cmd.Name}, cmd)
		}
		if err != nil {
			return created, fmt.Errorf("namespace %s: %w", cmd.Name, err)
		}
		// A namespace that existed keeps its own UID; one created now has
		// the command's.
		if ns.UID == cmd.UID {
			created = append(created, cmd.Name)
		}
	}
	return created, nil
}

package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// leases describes the lease: its row in leases.
var leases = describe(&aggregate[domain.Lease]{
	of: domain.LeaseAggregate,
	fresh: func(key string) domain.Lease {
		namespace, name, _ := strings.Cut(key, "/")
		return domain.NewLease(namespace, name)
	},
	load: func(ctx context.Context, q events.Querier, key string) (domain.Lease, error) {
		namespace, name, _ := strings.Cut(key, "/")
		return loadLease(ctx, q, namespace, name)
	},
	version:  func(l domain.Lease) int64 { return l.Version },
	position: func(l domain.Lease) int64 { return l.ResourceVersion },
	evolve: func(l domain.Lease, rec events.Record, ev domain.Event) domain.Lease {
		l = domain.EvolveLease(l, ev)
		if domain.SetsRenewTime(ev) {
			l.RenewedAt = rec.RecordedAt
		}
		// The stream's version, not a count of folds: retention deletes
		// old renewals, and a rebuild folds fewer events than were
		// appended.
		l.Version = rec.Version
		l.ResourceVersion = rec.Position
		return l
	},
	upsert: func(ctx context.Context, x execer, _ string, l domain.Lease, _ int64) error {
		data, err := domain.EncodeJSON(l)
		if err != nil {
			return fmt.Errorf("encode lease %s: %w", l.Key(), err)
		}
		if err := leaseRows.Upsert(ctx, x, viewstore.Lease{
			Row: viewstore.Row{
				Key:     viewstore.Key{Namespace: l.Namespace, Name: l.Name},
				Deleted: l.Deleted, Version: l.Version, ResourceVersion: l.ResourceVersion, Data: data,
			},
			RenewedAt: l.RenewedAt,
		}); err != nil {
			return fmt.Errorf("lease view %s: %w", l.Key(), err)
		}
		return nil
	},
	tables: []viewTable{{"leases", "namespace, name"}},
	// A node's lease is renewed every ten seconds by every kubelet:
	// remembered like a node, and decided and encoded outside the write
	// lock.
	cached:     true,
	prepared:   true,
	atPosition: func(l domain.Lease, pos int64) domain.Lease { l.ResourceVersion = pos; return l },
})

// leaseRows is the lease view's table behind the views' store port, on
// whichever engine a handle is of.
var leaseRows = viewstore.NewLeases()

func unmarshalLease(data []byte) (domain.Lease, error) {
	var l domain.Lease
	if err := json.Unmarshal(data, &l); err != nil {
		return domain.Lease{}, fmt.Errorf("decode lease row: %w", err)
	}
	// The row's strings are its own: the Lease keeps one copy of those a
	// fleet repeats, as one folded from the log does.
	return l.Interned(), nil
}

// loadLease reads a lease's row, tombstones included, or
// domain.ErrNotFound.
func loadLease(ctx context.Context, q viewstore.Querier, namespace, name string) (domain.Lease, error) {
	data, renewedAt, err := leaseRows.Get(ctx, q, viewstore.Key{Namespace: namespace, Name: name})
	l, err := decodeRow("leases.coordination.k8s.io", name, data, err, unmarshalLease)
	l.RenewedAt = renewedAt
	return l, err
}

// LeaseView answers queries about leases from the lease view.
type LeaseView struct {
	db *viewstore.DB
	// w, when set, answers Get from the unit of work's memory where it
	// holds the lease as last committed (Writer.currentLease).
	w *Writer
}

// Remembering is v answering Get, where it can, with the lease as w last
// committed it instead of reading its row: a kubelet's renewal reads its
// lease before it writes it, every ten seconds.
func (v *LeaseView) Remembering(w *Writer) *LeaseView { return &LeaseView{db: v.db, w: w} }

// currentLease is the lease as this herd last committed it, when the
// unit of work holds it and is authoritative for it (see currentNode).
func (w *Writer) currentLease(namespace, name string) (domain.Lease, bool) {
	if w == nil {
		return domain.Lease{}, false
	}
	s, ok := w.unit.Current(leases.of.Stream(namespace + "/" + name))
	if !ok {
		return domain.Lease{}, false
	}
	l, ok := s.(domain.Lease)
	return l, ok
}

// NewLeaseView returns a LeaseView reading the views beside log.
func NewLeaseView(log events.Log) *LeaseView {
	return &LeaseView{db: viewstore.NewDB(log)}
}

// Get returns the lease, or domain.ErrNotFound when it does not exist.
func (v *LeaseView) Get(ctx context.Context, namespace, name string) (domain.Lease, error) {
	l, ok := v.w.currentLease(namespace, name)
	if ok {
		if l.Deleted {
			return domain.Lease{}, fmt.Errorf("leases.coordination.k8s.io %q: %w", name, domain.ErrNotFound)
		}
		return l, nil
	}
	l, err := loadLease(ctx, v.db, namespace, name)
	if err == nil && l.Deleted {
		return domain.Lease{}, fmt.Errorf("leases.coordination.k8s.io %q: %w", name, domain.ErrNotFound)
	}
	return l, err
}

// List returns the leases of a namespace — of every namespace when
// namespace is "" — by namespace and name, with the log head at the moment
// of reading.
func (v *LeaseView) List(ctx context.Context, namespace string) ([]domain.Lease, int64, error) {
	return decodeLeases(leaseRows.List(ctx, v.db, namespace))
}

// Rows returns up to limit leases whose keys sort after after, tombstones
// included, and the log head; limit 0 or less means all of them.
func (v *LeaseView) Rows(ctx context.Context, after string, limit int) ([]domain.Lease, int64, error) {
	ns, name, _ := strings.Cut(after, "/")
	return decodeLeases(leaseRows.After(ctx, v.db, viewstore.Key{Namespace: ns, Name: name}, limit))
}

// decodeLeases rebuilds the leases of rows read at the log's head.
var decodeLeases = rowsDecoder("lease rows", unmarshalLease)

// FoldLease folds one logged event of a lease's stream into the lease, as
// the inline view does: watches and consistent lists use it.
func FoldLease(l domain.Lease, rec events.Record) (domain.Lease, error) {
	return leases.fold(l, rec)
}

package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
)

// view is an aggregate's description with its state type erased, as the
// rebuild router and Verify hold it.
type view interface {
	// log is the aggregate in the log.
	log() *domain.Aggregate
	// viewTables are the tables the aggregate writes.
	viewTables() []viewTable
	// rebuild starts a rebuild of the aggregate's views, taking
	// snapshots as snaps says.
	rebuild(snaps *snapshotTaker) rebuilder
	// snapshotOf folds a stream's events from its first into the state a
	// snapshot of it holds (snapshots_verify.go).
	snapshotOf(recs []events.Record) ([]byte, int64, error)
	// appendRecorded appends events recorded elsewhere to the stream of
	// key through the unit of work (Writer.AppendRecorded).
	appendRecorded(ctx context.Context, w *Writer, key string, evs []domain.Event) error
}

// rebuilder folds one aggregate's records during a rebuild and writes its
// rows at the end.
type rebuilder interface {
	apply(ctx context.Context, x execer, rec events.Record, ev domain.Event) error
	flush(ctx context.Context, x execer) error
}

// views are the described aggregates, in the order they were described,
// and byLog finds one by the aggregate in the log.
var (
	views []view
	byLog = map[*domain.Aggregate]view{}
)

// describe registers an aggregate's description and returns it. An
// aggregate described twice is a programming error.
func describe[S any](a *aggregate[S]) *aggregate[S] {
	if byLog[a.of] != nil {
		panic(fmt.Sprintf("projections: aggregate %s described twice", a.of.Name()))
	}
	views = append(views, a)
	byLog[a.of] = a
	return a
}

// viewOf returns the view of the aggregate a stream belongs to; ok is
// false for a stream no described aggregate owns.
func viewOf(stream string) (view, bool) {
	a, ok := domain.AggregateOf(stream)
	if !ok {
		return nil, false
	}
	v, ok := byLog[a]
	return v, ok
}

// allViewTables are the tables a rebuild empties and refills and Verify
// compares, aggregate by aggregate.
func allViewTables() []viewTable {
	var out []viewTable
	for _, v := range views {
		out = append(out, v.viewTables()...)
	}
	return out
}

func (a *aggregate[S]) log() *domain.Aggregate  { return a.of }
func (a *aggregate[S]) viewTables() []viewTable { return a.tables }

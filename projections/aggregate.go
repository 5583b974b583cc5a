package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"herd/domain"
	"herd/events"
)

// aggregate describes one aggregate's view once: which streams and events
// are its own (the domain's description), how a stored record folds into
// its state, and how its view row is read and written. The unit of work
// (update), the rebuild (rebuild), watches and lists (fold), and the
// tables a rebuild empties and Verify compares all derive from it, so an
// aggregate is one file that calls describe. S is the aggregate's state as
// the unit of work loads it.
type aggregate[S any] struct {
	// of is the aggregate in the log: its stream prefix, how a stream
	// name is made from its key, and its event types.
	of *domain.Aggregate
	// fresh is the state of the aggregate with key before its first event.
	fresh func(key string) S
	// load reads the aggregate's row by key (inside the unit of work's
	// transaction), tombstones included; domain.ErrNotFound, or fresh(key),
	// when there is none.
	load func(ctx context.Context, q events.Querier, key string) (S, error)
	// version is the number of events s reflects: the expected version of
	// the next append to its stream.
	version func(s S) int64
	// position, when set, is the log position of the last event s
	// reflects: its resourceVersion, which a dry run leaves as it is.
	position func(s S) int64
	// evolve folds one stored record into the state: the domain's Evolve
	// plus what only the log knows, such as the resourceVersion. The
	// inline view and the rebuild both fold through it, which is what
	// makes their rows equal.
	evolve func(s S, rec events.Record, ev domain.Event) S
	// eventRows, when set, writes the rows one stored event adds or
	// removes beside the aggregate's own (a node's timeline, a pool's
	// allocations), live and in a rebuild alike.
	eventRows func(ctx context.Context, x execer, key string, rec events.Record, ev domain.Event) error
	// upsert writes the aggregate's row; rv is the position of the last
	// event folded into s.
	upsert func(ctx context.Context, x execer, key string, s S, rv int64) error
	// hotOnly, when set, says whether events change only the part of the
	// state upsertHot writes (a node's plain heartbeat); the unit of work
	// then writes that part alone. A rebuild always writes through upsert.
	hotOnly   func(evs []domain.Event) bool
	upsertHot func(ctx context.Context, x execer, key string, s S, rv int64) error
	// tables are the view tables the aggregate writes, each with the
	// columns that order its rows.
	tables []viewTable
	// cached asks the unit of work to remember each committed state, so
	// that the next command on the same key need not decode its row: for
	// aggregates written far more often than anything else (a node's
	// heartbeats). The state must be treated as immutable, which the
	// domain's deciders and evolves already do.
	cached bool
	// prepared says the aggregate's commands are decided and encoded on
	// the caller's goroutine and only written by the group commit's
	// leader (prepared.go); atPosition, which it needs, is s with the
	// log position of its last event, known once the leader appended.
	prepared   bool
	atPosition func(s S, pos int64) S
	// observers, when set, returns the observers of this aggregate's
	// committed states on w (see Observer).
	observers func(w *Writer) []Observer[S]
}

// viewTable is a table of a view, with the columns that order its rows.
type viewTable struct{ name, orderBy string }

// execer is what writes a view row: a transaction, or a rebuild's cache of
// prepared statements.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// update runs updateTx for key in a transaction of its own: what every
// repository method of one aggregate does.
func (a *aggregate[S]) update(ctx context.Context, w *Writer, key string, decide func(S) ([]domain.Event, error)) (S, error) {
	if a.prepared {
		return a.updatePrepared(ctx, w, key, decide)
	}
	return a.updateOnLeader(ctx, w, key, decide)
}

// updateTx is the unit of work of every repository method: load the
// aggregate's row, let decide say what happens, append those events with
// the row's version as the expected version, fold the stored events and
// write the rows, all in tx. It returns the state as far as it got.
func (a *aggregate[S]) updateTx(ctx context.Context, w *Writer, tx unitTx, key string, decide func(S) ([]domain.Event, error)) (S, error) {
	stream := a.of.Stream(key)
	if a.cached && w.cacheStates {
		if cached, ok := w.states.get(stream); ok {
			evs, err := decide(cached.(S))
			if err == nil && len(evs) > 0 {
				s, err := a.write(ctx, w, tx, key, cached.(S), evs)
				if !errors.Is(err, domain.ErrConflict) {
					return s, err
				}
				// Something else wrote the stream since: decide again
				// on the row as it stands.
				w.states.forget(stream)
			}
			// A refusal or a no-op appends nothing, so no expected
			// version would catch a remembered state that is behind the
			// row: an earlier command of this group (or batch) moved the
			// stream and is not committed yet, or another process wrote
			// it. Decide again on the row, which sees both.
		}
	}
	s, err := a.load(ctx, tx.views(), key)
	if errors.Is(err, domain.ErrNotFound) {
		s, err = a.fresh(key), nil
	}
	if err != nil {
		return s, err
	}
	return a.decideAndWrite(ctx, w, tx, key, s, decide)
}

// decideAndWrite lets decide say what happens to s, appends those events
// with s's version as the expected version, folds them and writes the
// rows, all in tx.
func (a *aggregate[S]) decideAndWrite(ctx context.Context, w *Writer, tx unitTx, key string, s S, decide func(S) ([]domain.Event, error)) (S, error) {
	evs, err := decide(s)
	if err != nil || len(evs) == 0 {
		return s, err
	}
	return a.write(ctx, w, tx, key, s, evs)
}

// write appends evs, decided on s, with s's version as the expected
// version, folds them and writes the rows, all in tx.
func (a *aggregate[S]) write(ctx context.Context, w *Writer, tx unitTx, key string, s S, evs []domain.Event) (S, error) {
	stream := a.of.Stream(key)
	recs, err := w.appendEvents(ctx, tx, stream, a.version(s), evs)
	if err != nil {
		return s, err
	}
	for i, rec := range recs {
		if s, err = a.apply(ctx, tx.views(), key, s, rec, evs[i]); err != nil {
			return s, err
		}
	}
	write := a.upsert
	if a.hotOnly != nil && a.hotOnly(evs) {
		write = a.upsertHot
	}
	if err := write(ctx, tx.views(), key, s, recs[len(recs)-1].Position); err != nil {
		return s, err
	}
	var obs []Observer[S]
	if a.observers != nil {
		obs = a.observers(w)
	}
	cache := a.cached && w.cacheStates
	if cache || len(obs) > 0 {
		// One function after the commit for both: a heartbeat pays for
		// one closure, not two.
		version := a.version(s)
		w.group.afterCommit(func() {
			if cache {
				w.states.put(stream, version, s)
			}
			for _, o := range obs {
				o(s, evs)
			}
		})
	}
	return s, nil
}

// apply folds one stored event into s and writes the rows it adds beside
// the aggregate's own.
func (a *aggregate[S]) apply(ctx context.Context, x execer, key string, s S, rec events.Record, ev domain.Event) (S, error) {
	s = a.evolve(s, rec, ev)
	if a.eventRows == nil {
		return s, nil
	}
	return s, a.eventRows(ctx, x, key, rec, ev)
}

// fold folds one logged record of the aggregate's streams into s, as the
// inline view does; a state never seen (version 0) starts as fresh. Watches
// and consistent lists use it to rebuild an object as it stood at any log
// position.
func (a *aggregate[S]) fold(s S, rec events.Record) (S, error) {
	key, ok := a.of.Key(rec.Stream)
	if !ok {
		return s, fmt.Errorf("fold %s: %s@%d is not one of its streams", a.of.Name(), rec.Stream, rec.Version)
	}
	// As a rebuild decodes: lists of the past, watches resumed from
	// history and what-if replays fold every event they show.
	ev, err := domain.UnmarshalEventWith(rec.Type, rec.Payload, unmarshalStored)
	if err != nil {
		return s, fmt.Errorf("fold %s@%d: %w", rec.Stream, rec.Version, err)
	}
	if a.version(s) == 0 {
		s = a.fresh(key)
	}
	return a.evolve(s, rec, ev), nil
}

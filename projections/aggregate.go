package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
	"herd/projections/command"
)

// aggregate describes one aggregate's view once: which streams and events
// are its own (the domain's description), how a stored record folds into
// its state, and how its view row is read and written. The unit of work
// (package command, through on), the rebuild (rebuild), watches and lists
// (fold), and the tables a rebuild empties and Verify compares all derive
// from it, so an aggregate is one file that calls describe. S is the
// aggregate's state as the unit of work loads it.
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
	// cached asks the unit of work to remember each committed state
	// (command.Mode.Cached).
	cached bool
	// prepared says the aggregate's commands are decided and encoded on
	// the caller's goroutine and only written by the group commit's
	// leader (command.Mode.Prepared); atPosition, which it needs, is s
	// with the log position of its last event, known once the leader
	// appended.
	prepared   bool
	atPosition func(s S, pos int64) S
	// observers, when set, returns the observers of this aggregate's
	// committed states on w (see Observer).
	observers func(w *Writer) []Observer[S]
}

// viewTable is a table of a view, with the columns that order its rows.
type viewTable struct{ name, orderBy string }

// execer is what writes a view row: a transaction, a prepared write's
// recorder, or a rebuild's cache of prepared statements.
type execer = events.Execer

// on is a as the unit of work runs it for w's commands.
func (a *aggregate[S]) on(w *Writer) command.Aggregate[S] { return kindOf[S]{a: a, w: w} }

// update runs one command on a's aggregate with key, in a transaction of
// its own: what every repository method of one aggregate does.
func (a *aggregate[S]) update(ctx context.Context, w *Writer, key string, decide func(S) ([]domain.Event, error)) (S, error) {
	return command.Update(ctx, w.unit, a.on(w), key, decide)
}

// updateTx runs one command on a's aggregate with key in tx, a unit of
// work that may hold others (command.UpdateTx).
func (a *aggregate[S]) updateTx(ctx context.Context, w *Writer, tx unitTx, key string, decide func(S) ([]domain.Event, error)) (S, error) {
	return command.UpdateTx(ctx, w.unit, a.on(w), tx, key, decide)
}

// kindOf is an aggregate's description as the unit of work sees it
// (command.Aggregate), with the Writer whose observers it tells.
type kindOf[S any] struct {
	a *aggregate[S]
	w *Writer
}

var _ command.Aggregate[domain.Node] = kindOf[domain.Node]{}

func (k kindOf[S]) Stream(key string) string { return k.a.of.Stream(key) }
func (k kindOf[S]) Fresh(key string) S       { return k.a.fresh(key) }
func (k kindOf[S]) Version(s S) int64        { return k.a.version(s) }

func (k kindOf[S]) Load(ctx context.Context, q events.Querier, key string) (S, error) {
	return k.a.load(ctx, q, key)
}

func (k kindOf[S]) Position(s S) int64 {
	if k.a.position == nil {
		return 0
	}
	return k.a.position(s)
}

func (k kindOf[S]) AtPosition(s S, pos int64) S {
	if k.a.atPosition == nil {
		return s
	}
	return k.a.atPosition(s, pos)
}

// Fold folds the event; with no execer (a dry run), the state alone.
func (k kindOf[S]) Fold(ctx context.Context, x events.Execer, key string, s S, rec events.Record, ev domain.Event) (S, error) {
	if x == nil {
		return k.a.evolve(s, rec, ev), nil
	}
	return k.a.apply(ctx, x, key, s, rec, ev)
}

// WriteRows writes the aggregate's row, or only its hot part when evs
// change nothing else.
func (k kindOf[S]) WriteRows(ctx context.Context, x events.Execer, key string, s S, evs []domain.Event, rv int64) error {
	if k.a.hotOnly != nil && k.a.hotOnly(evs) {
		return k.a.upsertHot(ctx, x, key, s, rv)
	}
	return k.a.upsert(ctx, x, key, s, rv)
}

func (k kindOf[S]) Mode() command.Mode {
	return command.Mode{Cached: k.a.cached, Prepared: k.a.prepared}
}

func (k kindOf[S]) Observers() []command.Observer[S] {
	if k.a.observers == nil {
		return nil
	}
	return k.a.observers(k.w)
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

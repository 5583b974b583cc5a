package command

import (
	"context"
	"errors"

	"herd/domain"
	"herd/events"
)

// Aggregate is what the unit of work needs of one kind of aggregate,
// whose state is S: how its state is named in the log, read from its
// view, folded and written back. The read models (projections) supply
// one per kind; the unit of work knows nothing of their tables.
type Aggregate[S any] interface {
	// Stream is the log stream of the aggregate with key.
	Stream(key string) string
	// Fresh is the state of the aggregate with key before its first
	// event.
	Fresh(key string) S
	// Load reads the state of key from its view through q: the unit's
	// transaction (Tx.Views), or the committed views outside any
	// transaction. Tombstones are states; domain.ErrNotFound, or
	// Fresh(key), when there is no row.
	Load(ctx context.Context, q events.Querier, key string) (S, error)
	// Version is the number of events s reflects: the expected version
	// of the next append to its stream.
	Version(s S) int64
	// Position is the log position of the last event s reflects (its
	// resourceVersion), which a dry run leaves as it is; 0 for a kind
	// that keeps none.
	Position(s S) int64
	// AtPosition is s with pos as the position of its last event: a
	// prepared write learns its position only once the leader appended.
	AtPosition(s S, pos int64) S
	// Fold folds one stored event into s and, when x is not nil, writes
	// the rows the event adds or removes beside the aggregate's own (a
	// node's timeline entry, a pool's allocation), with rec's position.
	Fold(ctx context.Context, x events.Execer, key string, s S, rec events.Record, ev domain.Event) (S, error)
	// WriteRows writes the aggregate's own rows for s, evs having just
	// been folded into it; rv is the position of the last of them. A
	// kind may write only the part evs changed (a node's plain
	// heartbeat rewrites only its hot row).
	WriteRows(ctx context.Context, x events.Execer, key string, s S, evs []domain.Event, rv int64) error
	// Mode says how the unit of work runs the kind's commands.
	Mode() Mode
	// Observers are told of each committed state, nil when none are.
	Observers() []Observer[S]
}

// Mode is how the unit of work runs one kind's commands.
type Mode struct {
	// Cached asks the unit of work to remember each committed state, so
	// that the next command on the same key need not decode its row: for
	// aggregates written far more often than anything else (a node's
	// heartbeats). The state must be treated as immutable, which the
	// domain's deciders and evolves already do.
	Cached bool
	// Prepared says the kind's commands are decided and encoded on the
	// caller's goroutine and only written by the group commit's leader
	// (prepared.go); the kind's AtPosition must then be meaningful.
	Prepared bool
}

// Observer is told of each state of an aggregate that the unit of work
// commits, with the events that led to it from the state before. It runs
// on the goroutine that committed, after the commit and before the
// commands' callers are answered, once per command, in commit order; so it
// must be quick (no I/O, no encoding, no allocation it can avoid) and must
// not issue commands. A command rolled back is never observed. The state
// is shared with the unit of work and must be treated as immutable, as
// the domain's deciders and evolves already treat it.
type Observer[S any] func(s S, evs []domain.Event)

// Update runs one command on the aggregate a with key in a transaction of
// its own (shared with the group commit's others): what every repository
// method of one aggregate does. decide says what happens to the state.
func Update[S any](ctx context.Context, u *Unit, a Aggregate[S], key string, decide func(S) ([]domain.Event, error)) (S, error) {
	if a.Mode().Prepared {
		return updatePrepared(ctx, u, a, key, decide, false)
	}
	return updateOnLeader(ctx, u, a, key, decide)
}

// Create is Update for a command that only creates the aggregate
// (domain.Creation: refused when it exists). On an aggregate whose commands
// are prepared and remembered (on either engine), a stream this process
// remembers no commit of is presumed new: the command is decided on the
// fresh state without reading its row, the commit refuses the append
// (expected version 0) if the stream exists after all (another replica or
// process created it, or this one did before a restart), and the command is
// then decided again on the row and refused as it would have been (see
// current). A command that may append on an aggregate that exists (a
// registration that records a restart) must not use it: every such append
// on a stream this process forgot (after a restart) would be refused at the
// commit and decided again.
func Create[S any](ctx context.Context, u *Unit, a Aggregate[S], key string, decide func(S) ([]domain.Event, error)) (S, error) {
	if a.Mode().Prepared {
		return updatePrepared(ctx, u, a, key, decide, true)
	}
	return updateOnLeader(ctx, u, a, key, decide)
}

// UpdateReading is Update for a command whose decision also weighs the
// state of another aggregate, r's with rkey, which it reads and does not
// write (the health rules' mark of a silent node weighs its lease):
// decide is given both. On an aggregate whose commands are prepared, the
// command is decided outside the write lock on both as last committed
// (remembered, else read from their rows outside any transaction), and
// its ready write depends on r's stream at the version it was read at:
// the leader answers it stale when that stream moved, as when a's did,
// and onLeader then runs the command whole on the leader, in tx, as it
// runs on an aggregate whose commands are not prepared. Either way the
// command writes only if it was decided on both streams as they stand
// where it is written.
func UpdateReading[S, R any](ctx context.Context, u *Unit, a Aggregate[S], key string, r Aggregate[R], rkey string,
	decide func(S, R) ([]domain.Event, error), onLeader func(tx Tx) (S, error)) (S, error) {
	leader := func() (S, error) {
		var out S
		err := u.Do(ctx, func(tx Tx) error {
			var err error
			out, err = onLeader(tx)
			return err
		})
		return out, err
	}
	if !a.Mode().Prepared {
		return leader()
	}
	rstream := r.Stream(rkey)
	reads := func(ctx context.Context, remembered bool) (func(S) ([]domain.Event, error), events.StreamVersion, bool, error) {
		rs, from, err := current(ctx, u, r, rkey, rstream, remembered, false)
		if err != nil {
			return nil, events.StreamVersion{}, false, err
		}
		return func(s S) ([]domain.Event, error) { return decide(s, rs) }, events.StreamVersion{Stream: rstream, Version: r.Version(rs)}, from == fromMemory, nil
	}
	return updatePreparedReading(ctx, u, a, key, nil, reads, false, leader)
}

// UpdateTx is the unit of work of every repository method: load the
// aggregate's row, let decide say what happens, append those events with
// the row's version as the expected version, fold the stored events and
// write the rows, all in tx. It returns the state as far as it got.
func UpdateTx[S any](ctx context.Context, u *Unit, a Aggregate[S], tx Tx, key string, decide func(S) ([]domain.Event, error)) (S, error) {
	stream := a.Stream(key)
	if a.Mode().Cached {
		if cached, ok := u.states.get(stream); ok {
			evs, err := decide(cached.(S))
			if err == nil && len(evs) > 0 {
				s, err := write(ctx, u, a, tx, key, cached.(S), evs)
				if !errors.Is(err, domain.ErrConflict) {
					return s, err
				}
				// Something else wrote the stream since (another
				// replica, another process): decide again on the row as
				// it stands.
				u.states.forget(stream)
				if !readable(err) {
					// The append failed in a way that left tx unable to
					// read the row (PostgreSQL ended a deadlock with
					// another replica's append here): the conflict is
					// the answer, as it is to a decision on the row.
					return s, err
				}
			}
			// A refusal or a no-op appends nothing, so no expected
			// version would catch a remembered state that is behind the
			// row: an earlier command of this group (or batch) moved the
			// stream and is not committed yet, or another replica or
			// process wrote it. Decide again on the row, which sees
			// both.
		}
	}
	s, err := a.Load(ctx, tx.Views(), key)
	if errors.Is(err, domain.ErrNotFound) {
		s, err = a.Fresh(key), nil
	}
	if err != nil {
		return s, err
	}
	return DecideAndWrite(ctx, u, a, tx, key, s, decide)
}

// readable reports whether the transaction of an append refused by a
// conflict can still be read: not when the log could not read the
// stream's version after the refusal (a conflict whose version is
// unknown, -1, may have ended the transaction's statements).
func readable(err error) bool {
	var conflict *events.ConflictError
	return !errors.As(err, &conflict) || conflict.Actual >= 0
}

// DecideAndWrite lets decide say what happens to s, which the caller
// loaded in tx, appends those events with s's version as the expected
// version, folds them and writes the rows, all in tx: the unit of work of
// a kind that loads its state its own way (a pool with only the
// allocations of one pod).
func DecideAndWrite[S any](ctx context.Context, u *Unit, a Aggregate[S], tx Tx, key string, s S, decide func(S) ([]domain.Event, error)) (S, error) {
	evs, err := decide(s)
	if err != nil || len(evs) == 0 {
		return s, err
	}
	return write(ctx, u, a, tx, key, s, evs)
}

// write appends evs, decided on s, with s's version as the expected
// version, folds them and writes the rows, all in tx.
func write[S any](ctx context.Context, u *Unit, a Aggregate[S], tx Tx, key string, s S, evs []domain.Event) (S, error) {
	stream := a.Stream(key)
	recs, err := u.Append(ctx, tx, stream, a.Version(s), evs)
	if err != nil {
		return s, err
	}
	for i, rec := range recs {
		if s, err = a.Fold(ctx, tx.Views(), key, s, rec, evs[i]); err != nil {
			return s, err
		}
	}
	if err := a.WriteRows(ctx, tx.Views(), key, s, evs, recs[len(recs)-1].Position); err != nil {
		return s, err
	}
	obs := a.Observers()
	cache := a.Mode().Cached
	if cache || len(obs) > 0 {
		// One function after the commit for both: a heartbeat pays for
		// one closure, not two.
		version, last := a.Version(s), recs[len(recs)-1].Position
		if cache {
			u.group.willShare(stream)
		}
		u.group.afterCommit(func() {
			if cache {
				u.remember(stream, version, last, s)
			}
			for _, o := range obs {
				o(s, evs)
			}
		})
	}
	return s, nil
}

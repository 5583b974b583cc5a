package command

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"herd/domain"
	"herd/events"
)

// A prepared command is read, decided and encoded on its caller's
// goroutine, against the newest committed state this process knows (the
// state cache, else the view row read outside any transaction); what
// reaches the group commit's leader is a readyWrite, bytes and
// statements only. The leader checks the stream still stands at the
// version the command was decided on, takes the positions, runs the
// statements and commits; a write whose stream moved is answered
// errStale and the command runs again whole on the leader, on the newer
// state (ARCHITECTURE.md, "Where the serial section is").

// errStale answers a ready write whose stream moved after it was decided:
// the command runs again on the leader. It never leaves the package.
var errStale = errors.New("the stream moved since the command was decided")

// errReadMoved is errStale for a ready write whose own stream stands
// where it was decided but one of the streams it read moved
// (readyWrite.reads).
var errReadMoved = fmt.Errorf("%w: a stream it read moved", errStale)

// readyWrite is one command decided and encoded outside the write lock:
// the events to append at the expected version, and the view rows they
// write, with the log positions left for the leader to fill in.
type readyWrite struct {
	stream   string
	expected int64
	md       events.Metadata
	at       time.Time
	evs      []events.NewEvent
	rows     []events.RecordedStatement
	// reads are the streams the command was decided on without writing
	// them, each at the version it read: the leader answers the write
	// stale when one of them moved, as when its own stream did.
	reads []events.StreamVersion
	// prepared is the append made ready for a log that takes prepared
	// appends (SQLite's, PostgreSQL's), nil for one that does not.
	prepared *events.PreparedAppend
	// committed runs on the leader once the group committed, with the
	// position of the write's last event: it remembers the state and
	// tells the observers, in commit order.
	committed func(last int64)
	// shared says committed remembers, hence shares, the state
	// (Unit.ShareStates).
	shared bool
}

// updatePrepared is Update for an aggregate whose commands are prepared:
// decide and encode here, write on the leader, and run the command whole
// on the leader when the stream moved in between.
func updatePrepared[S any](ctx context.Context, u *Unit, a Aggregate[S], key string, decide func(S) ([]domain.Event, error), creation bool) (S, error) {
	return updatePreparedReading(ctx, u, a, key, decide, nil, creation, func() (S, error) {
		return updateOnLeader(ctx, u, a, key, decide)
	})
}

// updatePreparedReading is updatePrepared for a command that may read a
// stream besides its own (reads, nil when it reads none), run by
// onLeader on the group commit's leader when it cannot be prepared.
func updatePreparedReading[S any](ctx context.Context, u *Unit, a Aggregate[S], key string, decide func(S) ([]domain.Event, error), reads reading[S], creation bool, onLeader func() (S, error)) (S, error) {
	stream := a.Stream(key)
	// In the write queue from here, as a command run whole on the leader
	// is from Do on: herd is behind when its heartbeats wait (a Hold
	// keeps this one here, before it decides).
	leave, err := u.queue.enter(ctx)
	if err != nil {
		var zero S
		return zero, err
	}
	queued := true
	defer func() {
		if queued {
			leave()
		}
	}()
	if u.inFlight.enter(stream) {
		s, again, err := tryPrepared(ctx, u, a, key, stream, decide, reads, creation)
		u.inFlight.leave(stream)
		if !again {
			return s, err
		}
	}
	// Either another command of this stream is between its decision and
	// its commit, so this one would find the stream moved, or this one
	// did find it moved. It runs on the leader instead, on the state the
	// commands before it left. Deciding again outside the lock would not
	// be sure to end: on a busy stream (many writers of one node) the
	// commands the leader runs ahead of it in the next group move the
	// stream again, and a command decided again and again waited for
	// seconds while every other write of its stream went through.
	// onLeader enters the queue itself, through Do.
	leave()
	queued = false
	return onLeader()
}

// reading is what a prepared command reads besides its own aggregate
// (UpdateReading): it reads that stream — from memory where remembered
// allows and the unit remembers it — and returns the command's decision
// on what it read, the stream at the version read, and whether it came
// from memory.
type reading[S any] func(ctx context.Context, remembered bool) (decide func(S) ([]domain.Event, error), read events.StreamVersion, fromMemory bool, err error)

// tryPrepared decides, prepares and writes one command once; again says
// it must be decided again (its stream, or the one it read, moved before
// its turn). presume lets it decide on a state presumed new (see
// current), so that one whose presumption the commit refused is decided
// again, on the row. reads, when set, reads the other stream the command
// is decided on and gives the decision (decide is then not used).
func tryPrepared[S any](ctx context.Context, u *Unit, a Aggregate[S], key, stream string, decide func(S) ([]domain.Event, error), reads reading[S], presume bool) (S, bool, error) {
	s, from, err := current(ctx, u, a, key, stream, true, presume)
	if err != nil {
		return s, false, err
	}
	var deps []events.StreamVersion
	readCached := false
	readAgain := func(remembered bool) error {
		if reads == nil {
			return nil
		}
		var dep events.StreamVersion
		var err error
		if decide, dep, readCached, err = reads(ctx, remembered); err != nil {
			return err
		}
		deps = []events.StreamVersion{dep}
		return nil
	}
	if err := readAgain(true); err != nil {
		return s, false, err
	}
	cached := from == fromMemory
	evs, err := decideSafely(decide, s)
	switch {
	case from == presumedNew && (err != nil || len(evs) == 0):
		// Only a command that creates the stream may rest on the
		// presumption, which its append's expected version (0) checks:
		// a refusal or a no-op ("not found", "already so") is decided
		// again on the row, which may well exist.
		if s, _, err = current(ctx, u, a, key, stream, false, false); err != nil {
			return s, false, err
		}
		cached = false
		evs, err = decideSafely(decide, s)
	case (from == fromMemory || readCached) && (err != nil || len(evs) == 0):
		// A refusal or a no-op appends nothing, so no expected version
		// would catch a remembered state that is behind the row (another
		// replica or process wrote the stream): a change back to what the
		// memory says ("labels already equal") would be lost. Whether the
		// stream moved past the memory is one look at the log's index (no
		// row decoded, and nothing found when it did not: a kubelet probe
		// that changes nothing costs only that); when it did, the command
		// is decided again on the row as it stands. So for the stream it
		// read, when it read it from memory.
		moved := false
		if from == fromMemory {
			own, rerr := movedPast(ctx, u, stream, a.Version(s))
			if rerr != nil {
				return s, false, rerr
			}
			moved = own
		}
		if readCached {
			read, rerr := movedPast(ctx, u, deps[0].Stream, deps[0].Version)
			if rerr != nil {
				return s, false, rerr
			}
			moved = moved || read
		}
		if moved {
			row, _, rerr := current(ctx, u, a, key, stream, false, false)
			if rerr != nil {
				return row, false, rerr
			}
			s, cached = row, false
			if rerr := readAgain(false); rerr != nil {
				return s, false, rerr
			}
			evs, err = decideSafely(decide, s)
		}
	}
	if err != nil || len(evs) == 0 {
		return s, false, err
	}
	r, next, err := prepare(ctx, u, a, key, stream, s, evs, deps)
	if err != nil {
		return s, false, err
	}
	last, err := u.group.doReady(ctx, r)
	if errors.Is(err, errStale) {
		u.metrics.observeRedecided()
		// A remembered state that is still the one decided on was
		// overtaken by a write the cache never saw.
		if errors.Is(err, errReadMoved) {
			if readCached {
				u.states.forgetAt(deps[0].Stream, deps[0].Version)
			}
		} else if cached {
			u.states.forgetAt(stream, a.Version(s))
		}
		return s, true, err
	}
	if err != nil {
		return s, false, err
	}
	return a.AtPosition(next, last), false, nil
}

// movedPast reports whether stream holds events after version, and if
// so forgets a memory of it at that version.
func movedPast(ctx context.Context, u *Unit, stream string, version int64) (bool, error) {
	later, err := u.log.ReadStream(ctx, stream, version)
	if err != nil {
		return false, fmt.Errorf("read %s after version %d: %w", stream, version, err)
	}
	if len(later) == 0 {
		return false, nil
	}
	u.states.forgetAt(stream, version)
	return true, nil
}

// updateOnLeader runs the command whole on the group commit's leader,
// as the aggregates that are not prepared do.
func updateOnLeader[S any](ctx context.Context, u *Unit, a Aggregate[S], key string, decide func(S) ([]domain.Event, error)) (S, error) {
	var out S
	err := u.Do(ctx, func(tx Tx) error {
		var err error
		out, err = UpdateTx(ctx, u, a, tx, key, decide)
		return err
	})
	return out, err
}

// streamsInFlight counts, by stream, the prepared commands between their
// decision and their answer.
type streamsInFlight struct {
	mu sync.Mutex
	m  map[string]int
}

// enter marks a prepared command of stream in flight, unless one already
// is (false).
func (f *streamsInFlight) enter(stream string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m[stream] > 0 {
		return false
	}
	if f.m == nil {
		f.m = make(map[string]int)
	}
	f.m[stream]++
	return true
}

func (f *streamsInFlight) leave(stream string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m[stream]--; f.m[stream] <= 0 {
		delete(f.m, stream)
	}
}

// stateFrom says where current found a command's state.
type stateFrom int

const (
	// fromRow: read from the aggregate's row.
	fromRow stateFrom = iota
	// fromMemory: remembered after the last commit that moved it.
	fromMemory
	// presumedNew: the aggregate's fresh state, presumed for a command
	// that only creates (Create) because this process remembers no
	// commit of the stream. The creation decided on it appends at
	// expected version 0, which the commit refuses if the stream exists
	// after all (another process wrote it, or this one before a restart
	// or before forgetting it); its caller then decides again on the row,
	// and a second create of one name is refused as it would have been.
	// A Kubernetes create of a Node or a Lease thus reads no row for a
	// name nobody created yet.
	presumedNew
)

// current is the aggregate's newest committed state: remembered (when
// remembered may be used), presumed new when remembered and presume
// allow it and this process remembers nothing of the stream, or read
// from its row outside any transaction.
func current[S any](ctx context.Context, u *Unit, a Aggregate[S], key, stream string, remembered, presume bool) (S, stateFrom, error) {
	if remembered && a.Mode().Cached {
		if st, ok := u.states.get(stream); ok {
			return st.(S), fromMemory, nil
		}
		if presume {
			return a.Fresh(key), presumedNew, nil
		}
	}
	s, err := a.Load(ctx, u.views, key)
	if errors.Is(err, domain.ErrNotFound) {
		return a.Fresh(key), fromRow, nil
	}
	return s, fromRow, err
}

// prepare encodes evs, decided on s (and on the streams reads, at their
// versions), as a ready write: their payloads and metadata, and the rows
// folding them into s writes, with placeholder positions. It returns the
// state after evs, its position a placeholder.
func prepare[S any](ctx context.Context, u *Unit, a Aggregate[S], key, stream string, s S, evs []domain.Event, reads []events.StreamVersion) (*readyWrite, S, error) {
	if len(evs) > events.MaxPlaceholders {
		return nil, s, fmt.Errorf("append %s: %d events in one command, more than %d", stream, len(evs), events.MaxPlaceholders)
	}
	pending, err := EncodeEvents(evs)
	if err != nil {
		return nil, s, err
	}
	md := events.MetadataFor(ctx, stream)
	at := u.clock.Now().UTC()
	expected := a.Version(s)
	rec := events.NewRecorder(u.dialect, len(evs))
	for i, ev := range evs {
		r := events.Record{
			Position: events.PlaceholderBase + int64(i), Stream: stream, Version: expected + int64(i) + 1,
			Type: pending[i].Type, SchemaVersion: max(pending[i].SchemaVersion, 1), RecordedAt: at,
			Payload: pending[i].Payload, Metadata: md,
		}
		if s, err = a.Fold(ctx, rec, key, s, r, ev); err != nil {
			return nil, s, err
		}
	}
	if err := a.WriteRows(ctx, rec, key, s, evs, events.PlaceholderBase+int64(len(evs)-1)); err != nil {
		return nil, s, err
	}
	rows := rec.Statements()
	if err := u.stmts.PrepareRecorded(ctx, rows); err != nil {
		return nil, s, err
	}
	obs := a.Observers()
	cache := a.Mode().Cached
	version := a.Version(s)
	next := s
	r := &readyWrite{stream: stream, expected: expected, md: md, at: at, evs: pending, rows: rows, reads: reads, shared: cache}
	if u.prepareAppends {
		if err := u.appendsPrepared(); err != nil {
			return nil, s, err
		}
		if r.prepared, err = events.PrepareAppend(stream, expected, md, at, pending...); err != nil {
			return nil, s, err
		}
		r.prepared.ReadAt(reads...)
	}
	if cache || len(obs) > 0 {
		r.committed = func(last int64) {
			final := a.AtPosition(next, last)
			if cache {
				u.remember(stream, version, last, final)
			}
			for _, o := range obs {
				o(final, evs)
			}
		}
	}
	return r, next, nil
}

// decideSafely runs decide, turning a panic into the command's error, as
// the group commit does for the commands it runs: one bad command must
// not take herd down with it.
func decideSafely[S any](decide func(S) ([]domain.Event, error), s S) (evs []domain.Event, err error) {
	defer func() {
		if p := recover(); p != nil {
			evs, err = nil, fmt.Errorf(errPanicFormat, p)
		}
	}()
	return decide(s)
}

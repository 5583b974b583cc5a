package command

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
)

// Unit is the unit of work's machinery for one log: the write queue, the
// group commit, the state cache and the prepared path. Through it a
// command loads its aggregate from the view, lets the domain decide,
// appends the resulting events with the expected version and updates the
// inline views — all in one transaction, on either engine
// (ARCHITECTURE.md, "Where the serial section is"). The read models
// (projections) describe each kind to it as an Aggregate.
type Unit struct {
	log events.Log
	// views reads the views outside any transaction: the state a
	// prepared command decides on when none is remembered.
	views events.Querier
	// dialect is the engine's, for the statements a kind runs or a
	// prepared write records.
	dialect events.Dialect
	clock   clock.PassiveClock
	metrics *Metrics
	group   *groupCommit
	// queue says how long the commands in the write path have waited
	// (WriteQueue).
	queue *WriteQueue
	// states remembers the committed states of the aggregates that ask
	// for it (Mode.Cached), on either engine, and their commands decide
	// on what it remembers instead of reading their rows. That holds
	// where this process is not the only writer (another replica on
	// PostgreSQL, another process on a SQLite file): a decision that
	// appends carries the remembered version as its expected version,
	// which the serial section refuses if the stream moved (the command
	// is then decided again on the row); a decision that appends nothing
	// (a no-op, a refusal) is confirmed against the stream's version in
	// the log before it is answered, and decided again on the row when
	// the stream moved (tryPrepared, UpdateTx). No command is answered
	// from a state another replica changed.
	states stateCache
	// share, when set (ShareStates), is handed every state states
	// remembers, as it remembers it.
	share atomic.Pointer[func(stream string, pos int64, state any)]
	// authoritative says every append to the log goes through this unit
	// (SQLite, whose one writer is this process), so that a remembered
	// state is its stream at its head: then, and only then, reads are
	// answered from memory (Current, Committing, ObserveCommits). On
	// PostgreSQL other replicas append to the same streams unseen by
	// this one, and a read goes to the rows.
	authoritative bool
	// inFlight are the streams with a prepared command between its
	// decision and its answer: a second command of the same stream runs
	// on the leader rather than be decided on a state about to move.
	inFlight streamsInFlight
	// prepareAppends says the log takes appends made ready outside its
	// transaction (events.PreparedAppend): SQLite's and PostgreSQL's do.
	prepareAppends bool
	// stmts are the ready writes' statements, prepared on SQLite's
	// database outside the write lock; nil on PostgreSQL.
	stmts *events.ViewStatements
	// appendsPrepared prepares the log's own statements of prepared
	// appends (events.AppendsPreparer) once, on a caller's goroutine
	// before its ready write queues, never on the leader.
	appendsPrepared func() error
}

// ShareStates makes the unit hand share every committed state it
// remembers (Mode.Cached: nodes and Leases), with its stream and the
// position of its last event, as the very value it remembers: a reader
// that keeps the same states (the watch hub) then holds one copy with the
// unit, not one of its own. share runs after the commit, before the
// command's caller is answered, on the committing goroutine: it must be
// quick, and must treat the state as immutable. settle, when not nil, is
// called on the same goroutine after each group's states are shared and
// its streams no longer Sharing. It must be called before the first
// command.
func (u *Unit) ShareStates(share func(stream string, pos int64, state any), settle func()) {
	u.share.Store(&share)
	// The streams whose states a commit shares are marked from before
	// it until they are shared (Sharing), on either engine.
	u.group.sharing = &u.states
	u.group.settled = settle
}

// Sharing reports whether a commit of stream is under way whose state
// is not shared yet (ShareStates): from before its events can be read
// until after its state is shared. A reader that finds a write of such
// a stream in the log and no state shared for it knows one is coming.
// Only the streams of kinds the unit remembers (Mode.Cached) are ever
// shared.
func (u *Unit) Sharing(stream string) bool { return u.states.isSharing(stream) }

// remember remembers state, of stream at version with its last event at
// pos, and shares it (ShareStates).
func (u *Unit) remember(stream string, version, pos int64, state any) {
	u.states.put(stream, version, state)
	if share := u.share.Load(); share != nil {
		(*share)(stream, pos, state)
	}
}

// New returns the unit of work appending to log, reading committed views
// through views and running view statements in the log's engine's
// dialect, stamping records with clk's time. metrics may be nil.
func New(log events.Log, views events.Querier, clk clock.PassiveClock, metrics *Metrics) *Unit {
	// The engine says whether the unit is authoritative (a SQLite
	// database is this process's alone) and what it may prepare, and on
	// SQLite the ready writes' statements are prepared on the log's own
	// pool, outside the write lock (events.ViewStatements).
	engine := events.EngineOf(log)
	u := &Unit{log: log, views: views, dialect: engine.Dialect(), clock: clk, metrics: metrics,
		group: &groupCommit{log: log, metrics: metrics}, queue: newWriteQueue(clock.RealClock{}),
		authoritative: engine != events.EnginePostgres, prepareAppends: engine == events.EngineSQLite || engine == events.EnginePostgres,
		stmts: events.NewViewStatements(log)}
	u.group.forget = u.states.forget
	if u.authoritative {
		u.group.committing = &u.states
	}
	u.appendsPrepared = func() error { return nil }
	if p, ok := log.(events.AppendsPreparer); ok && u.prepareAppends {
		var mu sync.Mutex
		done := false
		u.appendsPrepared = func() error {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return nil
			}
			// A failure is tried again by the next command.
			err := p.PrepareAppends(context.Background())
			done = err == nil
			return err
		}
	}
	return u
}

// Clock is the clock the unit stamps records and decides commands with.
func (u *Unit) Clock() clock.PassiveClock { return u.clock }

// Queue is the write path's queue: how long its commands wait.
func (u *Unit) Queue() *WriteQueue { return u.queue }

// Do runs fn as one command of a group commit (see groupCommit): in a
// write transaction shared with other callers' commands, inside its own
// savepoint. It returns once that transaction committed, or with fn's
// error, in which case nothing fn wrote remains. fn must not call Do.
func (u *Unit) Do(ctx context.Context, fn func(Tx) error) error {
	leave, err := u.queue.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	return u.group.do(ctx, fn)
}

// Append appends evs to stream at the expected version in tx and returns
// their records; a stream that moved since is domain.ErrConflict. The
// views fold evs themselves, not the stored payloads decoded back:
// decoding what was encoded a moment before cost every heartbeat a JSON
// decode inside the write lock. The domain's events come through JSON
// unchanged (times in UTC without a monotonic reading, no shared maps or
// slices), so a rebuild, which folds the stored payloads, gives the same
// rows; the rebuild-equals-live tests hold both to that.
func (u *Unit) Append(ctx context.Context, tx Tx, stream string, expected int64, evs []domain.Event) ([]events.Record, error) {
	pending, err := EncodeEvents(evs)
	if err != nil {
		return nil, err
	}
	// Append latency is wall time on purpose: a metric of what the append
	// cost, not a domain time (those come from u.clock).
	start := time.Now()
	recs, err := tx.log.Append(ctx, stream, expected, events.MetadataFor(ctx, stream), u.clock.Now(), pending...)
	if err != nil {
		return nil, fmt.Errorf("append %s@%d: %w", stream, expected, mapConflict(err))
	}
	u.metrics.observeAppend(len(recs), time.Since(start))
	u.group.appended(stream, recs[len(recs)-1].Position)
	return recs, nil
}

// Queued is how many commands wait for the group commit's leader to take
// them (not counting the group it is writing): tests hold a group and
// wait for the commands they start to queue behind it.
func (u *Unit) Queued() int {
	u.group.mu.Lock()
	defer u.group.mu.Unlock()
	return len(u.group.queue)
}

// Remembered is the state the unit remembers for stream, if any: what the
// next command on it decides on (Mode.Cached), on either engine. Not an
// answer to a read: on PostgreSQL another replica may have moved the
// stream since (Current is what a read may use).
func (u *Unit) Remembered(stream string) (any, bool) { return u.states.get(stream) }

// Current is stream's state as last committed, from memory, for a read
// that would otherwise read its view row: ok only where the unit keeps
// states (SQLite, whose one writer is this process: every append to a
// cached kind's stream goes through this unit and puts its state once
// its group committed, before its caller is answered) and holds this
// stream's. A state remembered here is then the stream at its head, as a
// read of the view row after the same commit would give it. From just
// before a group's commit until its states are put, its streams are
// not answered from memory (the row already shows the commit to others,
// a watch may already carry it): the caller reads the row. On
// PostgreSQL the unit remembers states too, for its commands to decide
// on, but another replica may have written the stream since: never ok
// there, and the caller reads the row.
func (u *Unit) Current(stream string) (any, bool) {
	if !u.authoritative {
		return nil, false
	}
	return u.states.current(stream)
}

// EncodeEvents turns domain events into the log's type-plus-bytes form:
// the object model's events as the model's own writer writes them (what
// json.Marshal writes, without its second pass over them).
func EncodeEvents(evs []domain.Event) ([]events.NewEvent, error) {
	out := make([]events.NewEvent, len(evs))
	for i, ev := range evs {
		payload, err := domain.EncodeJSON(ev)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", ev.EventType(), err)
		}
		out[i] = events.NewEvent{Type: ev.EventType(), SchemaVersion: domain.SchemaVersion(ev.EventType()), Payload: payload}
	}
	return out, nil
}

// mapConflict turns the log's optimistic-concurrency failure into the
// domain's, keeping the original in the chain.
func mapConflict(err error) error {
	if errors.Is(err, events.ErrConflict) {
		return fmt.Errorf("%w: %w", domain.ErrConflict, err)
	}
	return err
}

// Committing reports whether a group's commit may be moving a stream
// whose name begins with prefix: from just before the commit until its
// states are put and its observers told. A memory of the streams that
// observers keep (a view's index) is then behind what the rows may
// already show, and a reader goes to the rows. Always true where the
// unit is not authoritative (PostgreSQL): there, another replica may
// have written any stream, and nothing in memory answers a read.
func (u *Unit) Committing(prefix string) bool {
	if !u.authoritative {
		return true
	}
	return u.states.committingPrefix(prefix)
}

// ObserveCommits has fn told, on the group commit's leader, of every
// stream a group may have moved (appended to, or tried to) once the
// group's transaction ended — err nil when it committed — while those
// streams are still marked committing (Committing): a memory kept by fn
// is complete before a reader is told it may trust it. A failed commit
// may still have reached the disk, so fn forgets what it cannot be sure
// of then. Only where the unit is authoritative (SQLite); it does
// nothing on PostgreSQL, where another replica's appends are not seen.
// It must be called before the first command.
func (u *Unit) ObserveCommits(fn func(streams map[string]int64, err error)) {
	if u.authoritative {
		u.group.ended = fn
	}
}

// Authoritative reports whether every append to the log goes through
// this unit (SQLite, whose one writer is this process), so that
// observers of its commits see every state the views take. A unit that
// is not (PostgreSQL) still remembers states for its commands to decide
// on (Mode.Cached), never for a read to answer from.
func (u *Unit) Authoritative() bool { return u.authoritative }

package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
)

// Writer is the unit of work: it loads an aggregate from its view row,
// lets the domain decide, appends the resulting events with the expected
// version and updates the inline views — all in one transaction, on
// either engine. It implements domain.NodeRepository.
type Writer struct {
	log events.Log
	// views reads the views outside a transaction (EnsureNamespaces).
	views   *viewDB
	clock   clock.PassiveClock
	metrics *Metrics
	group   *groupCommit
	// queue says how long the commands in the write path have waited
	// (WriteQueue).
	queue *WriteQueue
	// states remembers the committed states of the aggregates that ask
	// for it (see aggregate.cached), when cacheStates: on SQLite, whose
	// one writer is this process. On PostgreSQL other replicas write the
	// same streams, and a state remembered here could decide a command
	// on what another replica has since changed (a cordon answered as
	// already done), so every command reads its row.
	states      stateCache
	cacheStates bool
	// inFlight are the streams with a prepared command between its
	// decision and its answer: a second command of the same stream runs
	// on the leader rather than be decided on a state about to move.
	inFlight streamsInFlight
	// prepareAppends says the log takes appends made ready outside its
	// transaction (events.PreparedAppend): SQLite's does.
	prepareAppends bool
	// nodeObservers are told of every committed node state (ObserveNodes).
	nodeObservers observers[domain.Node]
	// commands are the aggregates' Executes, made once so that asking
	// for one on every command costs nothing.
	commands *writerCommands
}

// NewWriter returns a Writer appending to log, stamping records with
// clk's time. metrics may be nil.
func NewWriter(log events.Log, clk clock.PassiveClock, metrics *Metrics) *Writer {
	_, engine := events.SQLDB(log)
	w := &Writer{log: log, views: newViewDB(log), clock: clk, metrics: metrics, group: &groupCommit{log: log, metrics: metrics},
		queue: newWriteQueue(clk), cacheStates: engine != events.EnginePostgres, prepareAppends: engine == events.EngineSQLite}
	w.commands = newWriterCommands(w)
	return w
}

// appendEvents appends evs to stream at the expected version and returns
// their records. The views fold evs themselves, not the stored payloads
// decoded back: decoding what was encoded a moment before cost every
// heartbeat a JSON decode inside the write lock. The domain's events come
// through JSON unchanged (times in UTC without a monotonic reading, no
// shared maps or slices), so a rebuild, which folds the stored payloads,
// gives the same rows; the rebuild-equals-live tests hold both to that.
func (w *Writer) appendEvents(ctx context.Context, tx unitTx, stream string, expected int64, evs []domain.Event) ([]events.Record, error) {
	pending, err := encodeEvents(evs)
	if err != nil {
		return nil, err
	}
	// Append latency is wall time on purpose: a metric of what the append
	// cost, not a domain time (those come from w.clock).
	start := time.Now()
	recs, err := tx.log.Append(ctx, stream, expected, events.MetadataFor(ctx, stream), w.clock.Now(), pending...)
	if err != nil {
		return nil, fmt.Errorf("append %s@%d: %w", stream, expected, mapConflict(err))
	}
	w.metrics.observeAppend(len(recs), time.Since(start))
	w.group.appended(stream, recs[len(recs)-1].Position)
	return recs, nil
}

// inTx runs fn as one command of a group commit (see groupCommit): in a
// write transaction shared with other callers' commands, inside its own
// savepoint. It returns once that transaction committed, or with fn's
// error, in which case nothing fn wrote remains. fn must not call inTx.
func (w *Writer) inTx(ctx context.Context, fn func(unitTx) error) error {
	leave, err := w.queue.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	return w.group.do(ctx, fn)
}

// WriteQueue is the write path's queue: how long its commands wait.
func (w *Writer) WriteQueue() *WriteQueue { return w.queue }

// encodeEvents turns domain events into the log's type-plus-bytes form.
func encodeEvents(evs []domain.Event) ([]events.NewEvent, error) {
	out := make([]events.NewEvent, len(evs))
	for i, ev := range evs {
		payload, err := json.Marshal(ev)
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

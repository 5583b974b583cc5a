package projections

import (
	"context"
	"sync"

	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections/command"
	"herd/projections/viewstore"
)

// Writer is the read models' side of the unit of work (package command):
// it describes each aggregate to it and hands out each one's commands.
// A command loads its aggregate from its view row, lets the domain
// decide, appends the resulting events with the expected version and
// updates the inline views — all in one transaction, on either engine.
type Writer struct {
	log events.Log
	// views reads the views outside a transaction (EnsureNamespaces).
	views *viewstore.DB
	clock clock.PassiveClock
	// unit is the unit of work: the group commit, the write queue, the
	// state cache and the prepared path.
	unit *command.Unit
	// nodeObservers are told of every committed node state (ObserveNodes).
	nodeObservers observers[domain.Node]
	// podIndex is the pods not finalized, as committed (PodView.Pods).
	podIndex podIndex
	// podObservers is podIndex's observer, as the pod aggregate's
	// Observers returns it on every commit of a pod.
	podObservers []Observer[domain.Pod]
	// leaseNames is every lease stream committed (LeaseView.NeverWritten).
	leaseNames leaseNames
	// leaseView reads leases for leaseNeverWritten, made once.
	leaseView     *LeaseView
	leaseViewOnce sync.Once
	// commands are the aggregates' Executes, made once so that asking
	// for one on every command costs nothing.
	commands *writerCommands
}

// NewWriter returns a Writer appending to log, stamping records with
// clk's time. metrics may be nil.
func NewWriter(log events.Log, clk clock.PassiveClock, metrics *Metrics) *Writer {
	views := viewstore.NewDB(log)
	return newWriterDeciding(log, views, views, clk, metrics)
}

// newWriterDeciding is NewWriter with views as the views beside log and
// decisions, the committed views the unit of work reads a state from
// outside any transaction when it remembers none (views, or a reader of
// them that counts its statements).
func newWriterDeciding(log events.Log, views *viewstore.DB, decisions events.Querier, clk clock.PassiveClock, metrics *Metrics) *Writer {
	w := &Writer{log: log, views: views, clock: clk,
		unit: command.New(log, decisions, clk, metrics.command())}
	w.commands = newWriterCommands(w)
	w.podObservers = []Observer[domain.Pod]{w.podIndex.observe}
	w.unit.ObserveCommits(w.leaseNames.ended)
	return w
}

// inTx runs fn as one command of a group commit (command.Unit.Do): in a
// write transaction shared with other callers' commands, inside its own
// savepoint. It returns once that transaction committed, or with fn's
// error, in which case nothing fn wrote remains. fn must not call inTx.
func (w *Writer) inTx(ctx context.Context, fn func(unitTx) error) error {
	return w.unit.Do(ctx, fn)
}

// WriteQueue is the write path's queue: how long its commands wait.
func (w *Writer) WriteQueue() *WriteQueue { return w.unit.Queue() }

// WriteQueue says how far behind herd's write path is (command.WriteQueue).
type WriteQueue = command.WriteQueue

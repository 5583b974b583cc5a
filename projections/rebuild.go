package projections

import (
	"context"
	"fmt"
	"time"

	"herd/events"
	"herd/projections/viewstore"
)

// RebuildOptions tune a rebuild.
type RebuildOptions struct {
	// BatchSize is how many log records are read per query. Default 20,000:
	// large enough that query overhead vanishes, small enough to keep memory
	// flat.
	BatchSize int
	// Progress, when set, is called after every batch with the log
	// position replayed up to and the log's head: the events replayed and
	// the total when no record was deleted, and a steady measure of the
	// way left when a retention policy deleted some (their positions pass
	// as quickly as the gaps are read).
	Progress func(done, total int64)
	// Now stamps the checkpoint; defaults to the wall clock.
	Now func() time.Time
	// Snapshots, when set, has the rebuild take the log's snapshots
	// afresh as it folds (every snapshot there is dropped first), so that
	// a log written before herd took snapshots gets them; the zero value
	// leaves the snapshots as they are.
	Snapshots SnapshotPolicy

	// foldSuperseded has the rebuild fold every heartbeat, superseded or
	// not (see leaveOutSuperseded): the tests compare the two.
	foldSuperseded bool
}

// SnapshotPolicy says when a rebuild snapshots an object: after every
// Every events of its stream, and at its first event recorded Interval or
// more after its last snapshot (or its first event), as the watch hub
// snapshots what changed every Interval.
type SnapshotPolicy struct {
	Every    int
	Interval time.Duration
}

func (p SnapshotPolicy) on() bool { return p.Every > 0 }

// RebuildStats says what a rebuild did.
type RebuildStats struct {
	// Events is the number of log records replayed.
	Events int64
	// Head is the log position the views now reflect.
	Head int64
	// Superseded is how many of the Events were heartbeats left unfolded
	// because a later heartbeat of the same node sets again all they set
	// (none when the rebuild takes snapshots, which need every state).
	Superseded int64
	// Took is the wall time of the rebuild.
	Took time.Duration
}

// Rebuild empties every view and refills it from the whole log, through the
// same descriptions the inline views use (each record goes to the
// aggregate whose stream it is on), in one transaction: readers
// see either the old views or the new ones. It holds the write lock while
// it runs, so it is meant for a stopped herd or a scratch copy.
//
// Its cost follows the rows it writes as much as the events it reads, so
// rows are written the cheap way for SQLite: the views' secondary indexes
// are dropped and created again at the end (one sort each instead of an
// insert at a random place per row), rows beside an aggregate's own
// (timelines) go in as their events come, in log order, many to a
// statement, and each aggregate's row goes in at the end in key order,
// encoded on every core. Memory follows the aggregates, not the log: one
// folded state per aggregate (one per row of its view), plus a few
// batches of records and of encoded rows per core.
func Rebuild(ctx context.Context, log events.Log, opts RebuildOptions) (RebuildStats, error) {
	start := time.Now() // wall time: how long the rebuild took, for the operator
	ltx, err := log.Begin(ctx)
	if err != nil {
		return RebuildStats{}, fmt.Errorf("rebuild: begin: %w", err)
	}
	defer func() { _ = ltx.Rollback() }()
	stats, err := rebuildIn(ctx, log, ltx, opts, true)
	if err != nil {
		return stats, err
	}
	if err := ltx.Commit(); err != nil {
		return stats, fmt.Errorf("rebuild: commit: %w", err)
	}
	stats.Took = time.Since(start)
	return stats, nil
}

// rebuildIn empties the view tables ltx sees and refills them from log
// up to ltx's head, in ltx; the caller commits or rolls back. With
// reindex, the tables' secondary indexes are dropped first and created
// again at the end.
func rebuildIn(ctx context.Context, log events.Log, ltx events.LogTx, opts RebuildOptions, reindex bool) (RebuildStats, error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 20000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	tx := newViewTx(ltx)
	total, err := ltx.Head(ctx)
	if err != nil {
		return RebuildStats{}, fmt.Errorf("rebuild: head: %w", err)
	}
	var indexes []viewstore.Index
	if reindex {
		if indexes, err = dropViewIndexes(ctx, tx); err != nil {
			return RebuildStats{}, err
		}
	}
	for _, t := range allViewTables() {
		if err := viewstore.Empty(ctx, tx, t.name); err != nil {
			return RebuildStats{}, fmt.Errorf("rebuild: %w", err)
		}
	}
	if opts.Snapshots.on() {
		if err := viewstore.DropSnapshots(ctx, tx); err != nil {
			return RebuildStats{}, fmt.Errorf("rebuild: %w", err)
		}
	}
	prepared := viewstore.NewPrepared(tx)
	defer prepared.Close()
	x := viewstore.NewBatches(prepared)
	rebuilders := make(map[view]rebuilder, len(views))
	snaps := &snapshotTaker{policy: opts.Snapshots, at: opts.Now()}
	for _, v := range views {
		rebuilders[v] = v.rebuild(snaps)
	}

	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	var stats RebuildStats
	leaveSuperseded := !opts.Snapshots.on() && !opts.foldSuperseded
	for b := range readDecoded(readCtx, rangeReader(log), total, opts.BatchSize, leaveSuperseded) {
		if b.err != nil {
			return stats, fmt.Errorf("rebuild: after %d: %w", stats.Head, b.err)
		}
		for i, rec := range b.recs {
			if b.views[i] == nil {
				continue // a stream no view folds
			}
			if err := rebuilders[b.views[i]].apply(ctx, x, rec, b.evs[i]); err != nil {
				return stats, err
			}
		}
		if len(b.recs) > 0 { // else a stretch whose records were deleted
			stats.Events += int64(len(b.recs))
			stats.Superseded += b.superseded
			stats.Head = b.recs[len(b.recs)-1].Position
		}
		if opts.Progress != nil {
			opts.Progress(b.upTo, total)
		}
	}
	if err := ctx.Err(); err != nil {
		return stats, err
	}
	for _, v := range views {
		if err := rebuilders[v].flush(ctx, x); err != nil {
			return stats, err
		}
	}
	if err := x.Flush(ctx); err != nil {
		return stats, fmt.Errorf("rebuild: %w", err)
	}
	prepared.Close() // the statements must be finished before the schema changes
	if err := createViewIndexes(ctx, tx, indexes); err != nil {
		return stats, err
	}
	if err := viewstore.Checkpoint(ctx, tx, stats.Head, opts.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return stats, fmt.Errorf("rebuild: %w", err)
	}
	return stats, nil
}

package projections

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"herd/domain"
	"herd/events"
)

// RebuildOptions tune a rebuild.
type RebuildOptions struct {
	// BatchSize is how many log records are read per query. Default 20,000:
	// large enough that query overhead vanishes, small enough to keep memory
	// flat.
	BatchSize int
	// Progress, when set, is called after every batch with the records
	// replayed so far and the total to replay.
	Progress func(done, total int64)
	// Now stamps the checkpoint; defaults to the wall clock.
	Now func() time.Time
}

// RebuildStats says what a rebuild did.
type RebuildStats struct {
	// Events is the number of log records replayed.
	Events int64
	// Head is the log position the views now reflect.
	Head int64
	// Took is the wall time of the rebuild.
	Took time.Duration
}

// Rebuild empties every view and refills it from the whole log, through the
// same apply functions the inline views use, in one transaction: readers
// see either the old views or the new ones. It holds the write lock while
// it runs, so it is meant for a stopped herd or a scratch copy.
func Rebuild(ctx context.Context, store *events.Store, opts RebuildOptions) (RebuildStats, error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 20000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	start := time.Now() // wall time: how long the rebuild took, for the operator
	tx, err := store.DB().BeginTx(ctx, nil)
	if err != nil {
		return RebuildStats{}, fmt.Errorf("rebuild: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()

	total, err := store.Head(ctx, tx)
	if err != nil {
		return RebuildStats{}, fmt.Errorf("rebuild: head: %w", err)
	}
	for _, t := range viewTables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t.name); err != nil {
			return RebuildStats{}, fmt.Errorf("rebuild: empty %s: %w", t.name, err)
		}
	}
	nodes, err := newViewRebuild(ctx, tx)
	if err != nil {
		return RebuildStats{}, err
	}
	defer nodes.close()
	others := newStreamRebuild()

	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	var stats RebuildStats
	for b := range readDecoded(readCtx, store, store.DB(), total, opts.BatchSize) {
		if b.err != nil {
			return stats, fmt.Errorf("rebuild: after %d: %w", stats.Head, b.err)
		}
		for i, rec := range b.recs {
			if err := nodes.apply(ctx, rec, b.evs[i]); err != nil {
				return stats, err
			}
			others.apply(rec, b.evs[i])
		}
		if len(b.recs) == 0 {
			continue // a stretch of the log whose records were deleted
		}
		stats.Events += int64(len(b.recs))
		stats.Head = b.recs[len(b.recs)-1].Position
		if opts.Progress != nil {
			opts.Progress(stats.Events, total)
		}
	}
	if err := ctx.Err(); err != nil {
		return stats, err
	}
	if err := nodes.flush(ctx); err != nil {
		return stats, err
	}
	if err := others.flush(ctx, tx); err != nil {
		return stats, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO projection_checkpoints (projection, position, rebuilt_at) VALUES ('views', ?, ?)
ON CONFLICT (projection) DO UPDATE SET position = excluded.position, rebuilt_at = excluded.rebuilt_at`,
		stats.Head, opts.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return stats, fmt.Errorf("rebuild: checkpoint: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return stats, fmt.Errorf("rebuild: commit: %w", err)
	}
	stats.Took = time.Since(start)
	return stats, nil
}

// viewRebuild folds node, pod, fleet, IP pool and kubelet target events
// in memory and writes each row once at the end: replaying a million
// heartbeats costs a million folds, not a million row writes.
type viewRebuild struct {
	tx       *sql.Tx
	timeline *sql.Stmt
	nodes    map[string]domain.Node
	pods     map[string]domain.Pod
	fleet    domain.FleetHealth
	fleetRV  int64
	pools    map[string]*poolRebuild
	targets  domain.KubeletTargets
	targetRV int64
}

// poolRebuild is one IP pool during a rebuild: its version, the position
// of its last event and its allocation rows by address. The rows change in
// place, so replaying a pool of thousands costs one change per event.
type poolRebuild struct {
	version, rv int64
	rows        map[string]allocationRow
}

func newViewRebuild(ctx context.Context, tx *sql.Tx) (*viewRebuild, error) {
	stmt, err := tx.PrepareContext(ctx, insertTimelineSQL)
	if err != nil {
		return nil, fmt.Errorf("rebuild: prepare timeline: %w", err)
	}
	return &viewRebuild{tx: tx, timeline: stmt, nodes: map[string]domain.Node{}, pods: map[string]domain.Pod{}, pools: map[string]*poolRebuild{}}, nil
}

func (r *viewRebuild) apply(ctx context.Context, rec events.Record, ev domain.Event) error {
	if rec.Stream == domain.FleetHealthStream {
		r.fleet, r.fleetRV = domain.EvolveFleet(r.fleet, ev), rec.Position
		return nil
	}
	if pool, ok := ipPoolStreamKey(rec.Stream); ok {
		r.applyIPAM(pool, rec, ev)
		return nil
	}
	if ns, name, ok := podStreamKey(rec.Stream); ok {
		key := ns + "/" + name
		p, seen := r.pods[key]
		if !seen {
			p = domain.Pod{Namespace: ns, Name: name}
		}
		r.pods[key] = applyPod(p, rec, ev)
		return nil
	}
	if rec.Stream == domain.KubeletTargetsStream {
		r.targets, r.targetRV = applyKubeletTargets(r.targets, rec, ev), rec.Position
		return nil
	}
	name, ok := strings.CutPrefix(rec.Stream, "node/")
	if !ok {
		return nil
	}
	n, seen := r.nodes[name]
	if !seen {
		n = domain.Node{Name: name}
	}
	n = applyNode(n, rec, ev)
	r.nodes[name] = n
	for _, e := range timelineEntries(name, rec, ev) {
		if _, err := r.timeline.ExecContext(ctx, e.args(0)...); err != nil {
			return fmt.Errorf("rebuild: timeline %s@%d: %w", name, rec.Position, err)
		}
	}
	return nil
}

func (r *viewRebuild) flush(ctx context.Context) error {
	if r.fleet.Version > 0 {
		if err := storeFleet(ctx, r.tx, r.fleet, r.fleetRV); err != nil {
			return err
		}
	}
	if err := r.flushPods(ctx); err != nil {
		return err
	}
	if err := r.flushIPAM(ctx); err != nil {
		return err
	}
	if r.targets.Version > 0 {
		if err := storeKubeletTargets(ctx, r.tx, r.targets, r.targetRV); err != nil {
			return err
		}
	}
	stmt, err := r.tx.PrepareContext(ctx, upsertNodeSQL)
	if err != nil {
		return fmt.Errorf("rebuild: prepare nodes: %w", err)
	}
	defer stmt.Close()
	for _, n := range r.nodes {
		row, err := toNodeRow(n)
		if err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, row.args()...); err != nil {
			return fmt.Errorf("rebuild: node %s: %w", n.Name, err)
		}
	}
	return nil
}

func (r *viewRebuild) close() { _ = r.timeline.Close() }

func (r *viewRebuild) flushPods(ctx context.Context) error {
	stmt, err := r.tx.PrepareContext(ctx, upsertPodSQL)
	if err != nil {
		return fmt.Errorf("rebuild: prepare pods: %w", err)
	}
	defer stmt.Close()
	for _, p := range r.pods {
		args, err := podRowArgs(p)
		if err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("rebuild: pod %s: %w", p.Key(), err)
		}
	}
	return nil
}

func (r *viewRebuild) applyIPAM(pool string, rec events.Record, ev domain.Event) {
	p := r.pools[pool]
	if p == nil {
		p = &poolRebuild{rows: map[string]allocationRow{}}
		r.pools[pool] = p
	}
	p.version++
	p.rv = rec.Position
	switch c := applyIPAM(pool, rec, ev); {
	case c.put != nil:
		p.rows[c.put.address] = *c.put
	case c.del != "":
		delete(p.rows, c.del)
	}
}

func (r *viewRebuild) flushIPAM(ctx context.Context) error {
	for pool, p := range r.pools {
		if _, err := r.tx.ExecContext(ctx, upsertIPPoolSQL, pool, p.version, p.rv, len(p.rows)); err != nil {
			return fmt.Errorf("rebuild: IP pool %s: %w", pool, err)
		}
		for _, row := range p.rows {
			if err := storeIPAMChange(ctx, r.tx, pool, ipamChange{put: &row}); err != nil {
				return fmt.Errorf("rebuild: %w", err)
			}
		}
	}
	return nil
}

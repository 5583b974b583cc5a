package projections

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
)

// CompactionConfig is herd's retention policy for plain heartbeats.
type CompactionConfig struct {
	// Retention is how long every heartbeat is kept. A heartbeat older
	// than that is deleted once a later heartbeat of the same node
	// supersedes it (domain.HeartbeatRecorded.Supersedes); a node's newest
	// heartbeat and every other event are kept for ever. 0 keeps every
	// heartbeat.
	Retention time.Duration
	// KeepEvery keeps, beyond Retention, the first heartbeat of each node
	// in every KeepEvery of recorded time, so that charts and time travel
	// still have a point per node every so often. 0 keeps none of them.
	KeepEvery time.Duration
	// Interval is how often a round runs. Default 10s: a round finds
	// about Interval's worth of heartbeats to delete, a few batches.
	Interval time.Duration
	// BatchSize is how many events one deletion removes. Each batch is one
	// command of a group commit; 256 deletions hold the write lock for
	// about a millisecond. Default 256.
	BatchSize int
	// ScanSize is how many heartbeats one read of the log takes, outside
	// the write lock. Default 4,096.
	ScanSize int
}

// DefaultHeartbeatRetention is how long herd keeps every heartbeat by
// default: long enough for `herd log --since 15m` to show each report and
// three times the watch history (5m), so a watch resuming within its
// history is never refused for compaction; short enough that a fleet of
// 10,000 nodes reporting every 10 s keeps about 900,000 heartbeats
// (about 0.6 GB) rather than 86 million a day.
const DefaultHeartbeatRetention = 15 * time.Minute

// RetentionJob is the name under which the replicas sharing a log elect
// the one that runs the retention policy (events.Leadership): herd_leader's
// job label.
const RetentionJob = "retention"

const (
	defaultCompactionInterval = 10 * time.Second
	defaultCompactionBatch    = 256
	defaultCompactionScan     = 4096
)

func (c *CompactionConfig) setDefaults() {
	if c.Interval == 0 {
		c.Interval = defaultCompactionInterval
	}
	if c.BatchSize == 0 {
		c.BatchSize = defaultCompactionBatch
	}
	if c.ScanSize == 0 {
		c.ScanSize = defaultCompactionScan
	}
}

// Validate names every setting that is out of range.
func (c CompactionConfig) Validate() error {
	var errs []error
	if c.Retention < 0 {
		errs = append(errs, fmt.Errorf("--heartbeat-retention %s: want 0 (keep every heartbeat) or a positive duration", c.Retention))
	}
	if c.KeepEvery < 0 {
		errs = append(errs, fmt.Errorf("--heartbeat-keep-every %s: want 0 (keep none beyond the retention) or a positive duration", c.KeepEvery))
	}
	if c.Interval < 0 {
		errs = append(errs, fmt.Errorf("compaction interval %s is negative", c.Interval))
	}
	if c.BatchSize < 0 || c.ScanSize < 0 {
		errs = append(errs, fmt.Errorf("compaction batch %d and scan %d must not be negative", c.BatchSize, c.ScanSize))
	}
	return errors.Join(errs...)
}

// Compactor deletes superseded plain heartbeats older than the retention
// window, in small batches through the unit of work's group commit. It
// remembers, per node, the heartbeats it has seen that nothing has
// superseded yet (at most one per shape of heartbeat), so its memory is
// bounded by the number of nodes, not by the log. A restart forgets them
// and reads the kept heartbeats again from the start of the log.
type Compactor struct {
	w       *Writer
	log     events.Compactable
	clock   clock.PassiveClock
	cfg     CompactionConfig
	metrics *Metrics

	mu sync.Mutex // one round at a time
	// scanned is, by compacted type, the position up to which the log
	// has been read.
	scanned map[string]int64
	// pending are, per node stream, the heartbeats seen and not yet
	// superseded: the newest, and an older one only if the newest does
	// not supersede it.
	pending map[string][]beat
	// keptBucket is, per node stream, the KeepEvery bucket whose first
	// heartbeat was kept last.
	keptBucket map[string]int64
}

// beat is a heartbeat the compactor has seen: its position, time and
// shape (which of metrics and kubelet figures it carries, as shared empty
// values, so that remembering a node's heartbeat does not keep its
// figures in memory).
type beat struct {
	pos   int64
	at    time.Time
	shape domain.Event
}

// Shared stand-ins for a heartbeat's figures in a beat's shape.
var (
	someMetrics = &domain.Metrics{}
	someKubelet = &domain.KubeletMetrics{}
)

// shapeOf is hb with its figures replaced by the shared stand-ins.
func shapeOf(hb domain.HeartbeatRecorded) domain.HeartbeatRecorded {
	var s domain.HeartbeatRecorded
	if hb.Metrics != nil {
		s.Metrics = someMetrics
	}
	if hb.Kubelet != nil {
		s.Kubelet = someKubelet
	}
	return s
}

// NewCompactor returns a compactor deleting through w's group commit,
// on either engine. metrics may be nil.
//
// On PostgreSQL the replicas sharing the database must not all run it:
// the one that leads the job RetentionJob does (cmd/herd). Two at once
// would not corrupt the log — a batch that finds an event already gone
// is refused whole, and the compactor then reads the log again — but
// they would race each other for nothing.
func NewCompactor(w *Writer, cfg CompactionConfig, metrics *Metrics) (*Compactor, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log, ok := w.log.(events.Compactable)
	if !ok && cfg.Retention > 0 {
		return nil, fmt.Errorf("--heartbeat-retention: a log of %T cannot be thinned; keep every heartbeat (--heartbeat-retention 0)", w.log)
	}
	return &Compactor{
		w: w, log: log, clock: w.clock, cfg: cfg, metrics: metrics,
		scanned: map[string]int64{}, pending: map[string][]beat{}, keptBucket: map[string]int64{},
	}, nil
}

// Interval is how often Compact should run.
func (c *Compactor) Interval() time.Duration { return c.cfg.Interval }

// Enabled says whether the policy deletes anything (Retention above 0).
func (c *Compactor) Enabled() bool { return c.cfg.Retention > 0 }

// CompactionStats says what one round did.
type CompactionStats struct {
	// Deleted is how many heartbeats the round deleted.
	Deleted int
	// Through is the compaction point after the round.
	Through int64
}

// compactedTypes are the frequent events the retention policy thins: a
// node's heartbeats and a lease's renewals (a kubelet renews its node's
// lease every 10 s, and leader elections every few seconds).
var compactedTypes = []string{domain.HeartbeatRecorded{}.EventType(), domain.LeaseRenewed{}.EventType()}

// Compact runs one round: it reads the heartbeats recorded before now
// minus the retention that it has not read yet, and deletes those a later
// heartbeat of the same node, also before the cut, supersedes. A round
// with Retention 0 does nothing.
func (c *Compactor) Compact(ctx context.Context) (CompactionStats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var stats CompactionStats
	if c.cfg.Retention == 0 {
		return stats, nil
	}
	before := c.clock.Now().Add(-c.cfg.Retention)
	horizon, err := c.log.FirstRecordedAt(ctx, before)
	if err != nil {
		return stats, fmt.Errorf("compact: %w", err)
	}
	var doomed []int64
	var through int64
	for _, typ := range compactedTypes {
		for c.scanned[typ] < horizon-1 {
			recs, err := c.log.ReadTypeRange(ctx, typ, c.scanned[typ], horizon, c.cfg.ScanSize)
			if err != nil {
				return stats, fmt.Errorf("compact: %w", err)
			}
			for _, rec := range recs {
				gone, by, err := c.see(rec)
				if err != nil {
					return stats, fmt.Errorf("compact: %s@%d (position %d): %w", rec.Stream, rec.Version, rec.Position, err)
				}
				if len(gone) > 0 {
					doomed = append(doomed, gone...)
					through = max(through, by)
				}
			}
			if len(recs) < c.cfg.ScanSize {
				c.scanned[typ] = horizon - 1
			} else {
				c.scanned[typ] = recs[len(recs)-1].Position
			}
			for len(doomed) >= c.cfg.BatchSize || (len(doomed) > 0 && c.scanned[typ] >= horizon-1) {
				n := min(len(doomed), c.cfg.BatchSize)
				if err := c.delete(ctx, doomed[:n], through, before); err != nil {
					return stats, err
				}
				stats.Deleted += n
				doomed = doomed[n:]
			}
		}
	}
	stats.Through = c.log.Compaction().Through
	return stats, nil
}

// see takes one heartbeat or lease renewal in log order and returns the
// positions of the pending ones of its stream that it supersedes and that
// are not kept for the thinned series, and its own position (what they
// relied on).
func (c *Compactor) see(rec events.Record) (gone []int64, by int64, err error) {
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return nil, 0, err
	}
	var shape domain.Event
	switch e := ev.(type) {
	case domain.HeartbeatRecorded:
		shape = shapeOf(e)
	case domain.LeaseRenewed:
		shape = domain.LeaseRenewed{}
	default:
		return nil, 0, fmt.Errorf("a %s is neither a heartbeat nor a lease renewal", rec.Type)
	}
	waiting := c.pending[rec.Stream][:0]
	for _, p := range c.pending[rec.Stream] {
		switch {
		case !domain.Supersedes(shape, p.shape):
			waiting = append(waiting, p)
		case c.keepForSeries(rec.Stream, p.at):
		default:
			gone = append(gone, p.pos)
		}
	}
	c.pending[rec.Stream] = append(waiting, beat{pos: rec.Position, at: rec.RecordedAt, shape: shape})
	return gone, rec.Position, nil
}

// keepForSeries says whether a superseded heartbeat recorded at is kept
// for the thinned series: the first of its node in each KeepEvery.
func (c *Compactor) keepForSeries(stream string, at time.Time) bool {
	if c.cfg.KeepEvery <= 0 {
		return false
	}
	bucket := at.UnixNano() / int64(c.cfg.KeepEvery)
	if last, ok := c.keptBucket[stream]; ok && last >= bucket {
		return false
	}
	c.keptBucket[stream] = bucket
	return true
}

// delete removes one batch as one command of a group commit. The
// compaction point moves first, so that no watch on this replica starts
// from a position whose history is going.
func (c *Compactor) delete(ctx context.Context, positions []int64, through int64, before time.Time) error {
	d := events.Deletion{Positions: positions, Through: through, Before: before, At: c.clock.Now()}
	c.log.RaiseCompactionPoint(through)
	var (
		took time.Duration
		now  events.Compaction
	)
	err := c.w.inTx(ctx, func(tx unitTx) error {
		// Wall time on purpose: how long the batch held the write lock.
		start := time.Now()
		defer func() { took = time.Since(start) }()
		var err error
		now, err = c.log.DeleteEvents(ctx, tx.Log(), d)
		return err
	})
	if err != nil {
		// What was read is no longer certain to match the log: read it
		// again from the start next round.
		clear(c.scanned)
		clear(c.pending)
		clear(c.keptBucket)
		return fmt.Errorf("compact: %w", err)
	}
	c.log.Compacted(now)
	c.metrics.observeCompaction(len(positions), took)
	return nil
}

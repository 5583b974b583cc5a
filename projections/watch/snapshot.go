package watch

import (
	"context"
	"time"

	gojson "github.com/goccy/go-json"
	"go.uber.org/zap"

	"herd/events"
)

// The hub snapshots the objects it follows into the log's database
// (events.Snapshots), so that an object's state at an old position folds
// from the newest snapshot before it rather than from its stream's first
// event: lists of the past, and watches resuming from before the hub's
// bases, as after a restart. A stream is snapshotted after every
// SnapshotEvery events of it the hub reads, and every SnapshotInterval
// when it changed since its last one. Snapshots are derived data: every
// one is its stream folded up to its position, so dropping them changes
// no answer, only how long it takes.

// snapTrack is what the hub knows of one stream's snapshots: the events
// it read since the last snapshot it took, and the stream's version and
// position as of the last of them.
type snapTrack struct {
	since   int32
	version int64
	pos     int64
	snapped int64
}

// snapJob is a snapshot to take: the object's state at its
// ResourceVersion, the stream's version then.
type snapJob struct {
	obj     *Object
	version int64
}

// snapshotBatch is how many snapshots one write saves at most.
const snapshotBatch = 256

// snapshotPause is how long the writer rests after each save, letting
// the snapshots queued meanwhile go in the next batch. A save is a write
// transaction of its own, with its own fsync, and on SQLite it takes the
// one write lock the group commit needs too: saved back to back (a few
// hot streams snapshotted every few hundred events each), they kept the
// group commit's leader in SQLite's busy wait, which polls the lock
// every 100 ms at best and lost it to the next save again and again; on
// a loaded machine with a slow disk every write waited seconds. Resting
// longer than that poll lets the leader in after each save. Wall time:
// it paces the disk, not herd's clock.
const snapshotPause = 250 * time.Millisecond

// snapshotsOn says whether the hub takes snapshots.
func (h *Hub) snapshotsOn() bool { return h.cfg.SnapshotEvery > 0 }

// track counts rec, folded into cur, towards its stream's next snapshot,
// and queues one when SnapshotEvery events have gone by. Only the
// goroutine that polls calls it.
func (h *Hub) track(rec events.Record, cur *Object) {
	if !h.snapshotsOn() {
		return
	}
	t := h.tracks[rec.Stream]
	if t == nil {
		t = &snapTrack{}
		h.tracks[rec.Stream] = t
	}
	t.since++
	t.version, t.pos = rec.Version, rec.Position
	if int(t.since) >= h.cfg.SnapshotEvery {
		h.queueSnapshot(t, cur)
	}
}

// queueSnapshot hands cur to the goroutine that writes snapshots; when it
// is behind, the snapshot is skipped (the stream is snapshotted at its
// next turn).
func (h *Hub) queueSnapshot(t *snapTrack, cur *Object) {
	select {
	case h.snapQueue <- snapJob{obj: cur, version: t.version}:
		t.since, t.snapped = 0, t.pos
	default:
		h.metrics.snapshotSkipped()
	}
}

// snapshotChanged queues a snapshot of every stream that changed since
// its last one, every SnapshotInterval of herd's clock. Only the
// goroutine that polls calls it.
func (h *Hub) snapshotChanged() {
	if !h.snapshotsOn() || h.clock.Since(h.snapshotted) < h.cfg.SnapshotInterval {
		return
	}
	h.snapshotted = h.clock.Now()
	for stream, t := range h.tracks {
		if t.pos > t.snapped {
			h.queueSnapshot(t, h.latest[stream])
		}
	}
}

// writeSnapshots encodes and saves the queued snapshots in batches until
// ctx ends.
func (h *Hub) writeSnapshots(ctx context.Context) {
	defer h.done.Done()
	batch := make([]events.Snapshot, 0, snapshotBatch)
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-h.snapQueue:
			batch = h.appendSnapshot(batch[:0], job)
		}
	fill:
		for len(batch) < snapshotBatch {
			select {
			case job := <-h.snapQueue:
				batch = h.appendSnapshot(batch, job)
			default:
				break fill
			}
		}
		if err := h.store.SaveSnapshots(ctx, batch); err != nil {
			if ctx.Err() != nil {
				return
			}
			h.log.Warn("watch: saving snapshots", zap.Int("snapshots", len(batch)), zap.Error(err))
			h.metrics.snapshotSkipped()
		} else {
			h.metrics.snapshotsTaken(len(batch))
		}
		rest := time.NewTimer(snapshotPause)
		select {
		case <-ctx.Done():
			rest.Stop()
			return
		case <-rest.C:
		}
	}
}

// appendSnapshot encodes job onto batch.
func (h *Hub) appendSnapshot(batch []events.Snapshot, job snapJob) []events.Snapshot {
	o := job.obj
	state, err := gojson.Marshal(o.state)
	if err != nil {
		h.log.Warn("watch: encoding a snapshot", zap.String("stream", o.Stream), zap.Int64("position", o.ResourceVersion), zap.Error(err))
		h.metrics.snapshotSkipped()
		return batch
	}
	return append(batch, events.Snapshot{
		Stream: o.Stream, Position: o.ResourceVersion, Version: job.version,
		TakenAt: h.clock.Now(), State: state,
	})
}

// fromSnapshot is the object of stream in kind k at position pos, folded
// from its newest snapshot at or before pos (or from its first event when
// there is none, or the snapshot cannot be read back); nil when the
// stream had no event by then.
func (h *Hub) fromSnapshot(ctx context.Context, k int, stream string, pos int64) (*Object, error) {
	snap, recs, err := h.store.ReadFromSnapshot(ctx, stream, pos)
	if err != nil {
		return nil, err
	}
	var o *Object
	if snap != nil {
		if o, err = h.kinds[k].restore(stream, snap.State, snap.Position); err != nil {
			h.log.Warn("watch: a snapshot that does not decode; folding its stream from the start",
				zap.String("stream", stream), zap.Int64("position", snap.Position), zap.Error(err))
			if recs, err = h.store.ReadStreamRange(ctx, stream, 0, pos); err != nil {
				return nil, err
			}
			o = nil
		}
	}
	h.metrics.readHistory(len(recs))
	for _, rec := range recs {
		o = h.fold(k, o, rec)
	}
	return o, nil
}

// restore is the object a snapshot of s holds, as of rv.
func (k *Kind[S]) restore(stream string, state []byte, rv int64) (*Object, error) {
	var s S
	if err := gojson.Unmarshal(state, &s); err != nil {
		return nil, err
	}
	return k.object(stream, s, rv), nil
}

// defaultSnapshotEvery and defaultSnapshotInterval are Config's defaults:
// a node reporting every 10 s is snapshotted about every 17 minutes, one
// changing less often at least hourly, so its state at any moment folds
// from at most 100 events.
const (
	defaultSnapshotEvery    = 100
	defaultSnapshotInterval = time.Hour
	snapshotQueue           = 4096
)

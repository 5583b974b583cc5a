package projections

import (
	"context"
	"fmt"
	"runtime"

	"herd/domain"
	"herd/events"
)

// decodedBatch is a stretch of the log with, for each record, the view of
// the aggregate whose stream it is on and its event decoded (both nil for
// a stream no view folds, and for a superseded heartbeat left out).
type decodedBatch struct {
	// upTo is the position the batch reads up to, whether or not a
	// record is left there.
	upTo  int64
	recs  []events.Record
	views []view
	evs   []domain.Event
	// superseded counts the heartbeats left out (leaveOutSuperseded).
	superseded int64
	err        error
}

// readRange reads the records whose positions lie in (after, upTo].
type readRange func(ctx context.Context, after, upTo int64) ([]events.Record, error)

// rangeReader reads ranges of log's records outside a transaction, which
// is safe for a rebuild because it never writes the events table: on
// SQLite without their ids and metadata, which no view folds; on another
// engine through the port, as ReadAfter with the records past the range
// (there when the range has gaps) left out.
func rangeReader(log events.Log) readRange {
	if store := events.SQLiteStore(log); store != nil {
		return func(ctx context.Context, after, upTo int64) ([]events.Record, error) {
			return store.ReadRange(ctx, store.DB(), after, upTo)
		}
	}
	return func(ctx context.Context, after, upTo int64) ([]events.Record, error) {
		recs, err := log.ReadAfter(ctx, after, int(upTo-after))
		if err != nil {
			return nil, fmt.Errorf("read range (%d, %d]: %w", after, upTo, err)
		}
		for len(recs) > 0 && recs[len(recs)-1].Position > upTo {
			recs = recs[:len(recs)-1]
		}
		return recs, nil
	}
}

// readDecoded streams the log from the start up to head in position ranges
// of batchSize, reading and decoding ahead of the caller on every core, in
// log order, while the caller folds the previous ones. With
// leaveSuperseded, each batch leaves out the heartbeats that a later one
// in the batch supersedes (leaveOutSuperseded).
func readDecoded(ctx context.Context, read readRange, head int64, batchSize int, leaveSuperseded bool) <-chan decodedBatch {
	batches := int((head + int64(batchSize) - 1) / int64(batchSize))
	return inOrder(ctx, batches, func(i int) (decodedBatch, bool) {
		lo := int64(i) * int64(batchSize)
		b := readBatch(ctx, read, lo, min(lo+int64(batchSize), head))
		if b.err == nil && leaveSuperseded {
			b.superseded = leaveOutSuperseded(b)
		}
		return b, b.err == nil
	})
}

// leaveOutSuperseded marks as folded by no view (view and event nil) each
// heartbeat of b that the next heartbeat of its stream in b supersedes
// (domain.HeartbeatRecorded.Supersedes: it sets again all the old one
// set, and no event between depends on what the old one set), and says
// how many. The fold's result does not depend on such a heartbeat: a
// node's state after the later one is the same with or without it, its
// version and resourceVersion are the later record's, and a heartbeat
// adds no timeline row. What it saves is the fold (a copy of the node
// and its metrics), on the one goroutine that folds, for nearly every
// heartbeat of a log. A heartbeat the next one does not supersede (one
// with metrics before a kubelet's, say) stays. The next one may itself be
// left out: what it sets, the one after it sets again, so what the
// earlier one set is set again all the same. The last heartbeat of each
// stream in the batch always stays.
func leaveOutSuperseded(b decodedBatch) int64 {
	var left int64
	next := map[string]domain.HeartbeatRecorded{}
	for i := len(b.recs) - 1; i >= 0; i-- {
		hb, ok := b.evs[i].(domain.HeartbeatRecorded)
		if !ok {
			continue
		}
		stream := b.recs[i].Stream
		if later, ok := next[stream]; ok && later.Supersedes(hb) {
			b.views[i], b.evs[i] = nil, nil
			left++
		}
		next[stream] = hb
	}
	return left
}

// inOrder runs produce(0), ..., produce(n-1) on every core and hands the
// results out in index order: worker w produces w, w+K, w+2K... and each
// result waits in a slot of one until its turn, so at most two results
// per worker are held at once, whatever n is. A result for which produce
// says false (a failure) is the last one handed out. Cancelling ctx stops
// the workers.
func inOrder[T any](ctx context.Context, n int, produce func(i int) (T, bool)) <-chan T {
	workers := max(1, runtime.GOMAXPROCS(0))
	slots := make([]chan T, workers)
	for w := range slots {
		slots[w] = make(chan T, 1)
		go func() {
			defer close(slots[w])
			for i := w; i < n; i += workers {
				v, ok := produce(i)
				select {
				case slots[w] <- v:
				case <-ctx.Done():
					return
				}
				if !ok {
					return
				}
			}
		}()
	}
	out := make(chan T, 1)
	go func() {
		defer close(out)
		for i := 0; ; i++ {
			v, ok := <-slots[i%workers]
			if !ok {
				return
			}
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// readBatch reads the records in (lo, hi], routes each to its view and
// decodes the ones a view folds.
func readBatch(ctx context.Context, read readRange, lo, hi int64) decodedBatch {
	recs, err := read(ctx, lo, hi)
	if err != nil {
		return decodedBatch{err: err}
	}
	views := make([]view, len(recs))
	evs := make([]domain.Event, len(recs))
	for i, rec := range recs {
		v, ok := viewOf(rec.Stream)
		if !ok {
			continue
		}
		ev, err := domain.UnmarshalEventWith(rec.Type, rec.Payload, unmarshalStored)
		if err != nil {
			return decodedBatch{err: fmt.Errorf("%s@%d (position %d): %w", rec.Stream, rec.Version, rec.Position, err)}
		}
		views[i], evs[i] = v, ev
	}
	return decodedBatch{upTo: hi, recs: recs, views: views, evs: evs}
}

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
// a stream no view folds).
type decodedBatch struct {
	// upTo is the position the batch reads up to, whether or not a
	// record is left there.
	upTo  int64
	recs  []events.Record
	views []view
	evs   []domain.Event
	err   error
}

// readDecoded streams the log from the start up to head in position ranges
// of batchSize, reading and decoding ahead of the caller on every core, in
// log order, while the caller folds the previous ones. Reading goes
// through q outside the rebuild's transaction, which is safe because a
// rebuild never writes the events table.
func readDecoded(ctx context.Context, store *events.Store, q events.Querier, head int64, batchSize int) <-chan decodedBatch {
	batches := int((head + int64(batchSize) - 1) / int64(batchSize))
	return inOrder(ctx, batches, func(i int) (decodedBatch, bool) {
		lo := int64(i) * int64(batchSize)
		b := readBatch(ctx, store, q, lo, min(lo+int64(batchSize), head))
		return b, b.err == nil
	})
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
func readBatch(ctx context.Context, store *events.Store, q events.Querier, lo, hi int64) decodedBatch {
	recs, err := store.ReadRange(ctx, q, lo, hi)
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

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
	recs  []events.Record
	views []view
	evs   []domain.Event
	err   error
}

// readDecoded streams the log from the start up to head in position ranges
// of batchSize, reading and decoding ahead of the caller on every core:
// worker w reads and decodes ranges w, w+K, w+2K... on its own connection,
// and the batches come out in log order while the caller folds the
// previous ones. Reading goes through q outside the rebuild's transaction,
// which is safe because a rebuild never writes the events table.
func readDecoded(ctx context.Context, store *events.Store, q events.Querier, head int64, batchSize int) <-chan decodedBatch {
	workers := max(1, runtime.GOMAXPROCS(0))
	slots := make([]chan decodedBatch, workers)
	for w := range slots {
		slots[w] = make(chan decodedBatch, 1)
		go func() {
			defer close(slots[w])
			for lo := int64(w * batchSize); lo < head; lo += int64(workers * batchSize) {
				b := readBatch(ctx, store, q, lo, min(lo+int64(batchSize), head))
				select {
				case slots[w] <- b:
				case <-ctx.Done():
					return
				}
				if b.err != nil {
					return
				}
			}
		}()
	}
	out := make(chan decodedBatch, 1)
	go func() {
		defer close(out)
		for i := 0; ; i++ {
			b, ok := <-slots[i%workers]
			if !ok {
				return
			}
			select {
			case out <- b:
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
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			return decodedBatch{err: fmt.Errorf("%s@%d (position %d): %w", rec.Stream, rec.Version, rec.Position, err)}
		}
		views[i], evs[i] = v, ev
	}
	return decodedBatch{recs: recs, views: views, evs: evs}
}

package projections

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"herd/domain"
	"herd/events"
)

// decodedBatch is a run of log records with their node events decoded
// (nil for records of other streams).
type decodedBatch struct {
	recs []events.Record
	evs  []domain.Event
	err  error
}

// readDecoded streams the log from the start up to head in batches, reading
// and decoding ahead of the caller: one goroutine reads rows, and payloads
// are decoded on every core while the caller folds the previous batch.
// Reading goes through q outside the rebuild's transaction, which is safe
// because a rebuild never writes the events table.
func readDecoded(ctx context.Context, store *events.Store, q events.Querier, head int64, batchSize int) <-chan decodedBatch {
	raw := make(chan decodedBatch, 2)
	out := make(chan decodedBatch, 2)
	go func() {
		defer close(raw)
		var after int64
		for after < head {
			recs, err := store.ReadAfter(ctx, q, after, batchSize)
			if err == nil && len(recs) == 0 {
				err = fmt.Errorf("the log ends at %d, before its head %d", after, head)
			}
			select {
			case raw <- decodedBatch{recs: recs, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			after = recs[len(recs)-1].Position
		}
	}()
	go func() {
		defer close(out)
		for b := range raw {
			if b.err == nil {
				b.evs, b.err = decodeParallel(b.recs)
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

// decodeParallel decodes the node events of recs on every core.
func decodeParallel(recs []events.Record) ([]domain.Event, error) {
	evs := make([]domain.Event, len(recs))
	workers := runtime.GOMAXPROCS(0)
	chunk := (len(recs) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(recs))
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				rec := recs[i]
				if !strings.HasPrefix(rec.Stream, "node/") && rec.Stream != domain.FleetHealthStream {
					continue
				}
				ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
				if err != nil {
					errs[w] = fmt.Errorf("rebuild: %s@%d (position %d): %w", rec.Stream, rec.Version, rec.Position, err)
					return
				}
				evs[i] = ev
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return evs, nil
}

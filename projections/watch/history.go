package watch

import (
	"context"
	"fmt"
	"time"
)

// waitFor waits until the hub has read the log up to pos, for at most
// WaitForPosition.
func (h *Hub) waitFor(ctx context.Context, pos int64) error {
	timer := time.NewTimer(h.cfg.WaitForPosition)
	defer timer.Stop()
	for {
		h.mu.RLock()
		cur, ch, stopped := h.pos, h.notify, h.stopped
		h.mu.RUnlock()
		switch {
		case stopped:
			return ErrClosed
		case pos <= cur:
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return &TooLargeError{Position: pos, Current: cur}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// checkRetained fails with an *ExpiredError when pos is older than the
// history kept: when it is before the log's compaction point (old
// heartbeats after it were deleted, so the log no longer tells how things
// stood then), or the first event after it was recorded more than History
// ago.
func (h *Hub) checkRetained(ctx context.Context, pos int64) error {
	if c := h.store.Compaction(); pos < c.Through {
		return &ExpiredError{Position: pos, History: h.cfg.History, CompactedThrough: c.Through}
	}
	next, err := h.store.ReadAfter(ctx, pos, 1)
	if err != nil {
		return fmt.Errorf("watch: history after %d: %w", pos, err)
	}
	if len(next) == 1 && next[0].RecordedAt.Before(h.clock.Now().Add(-h.cfg.History)) {
		return &ExpiredError{Position: pos, History: h.cfg.History}
	}
	return nil
}

// stateAt is the object of stream as it stood at log position pos: the
// newest base at or before pos, folded forward with the stream's events
// up to pos (or, when pos is older than every base, the newest snapshot
// at or before it, or the stream's first event, folded forward); nil when
// the stream had no event by then.
func (h *Hub) stateAt(ctx context.Context, k int, stream string, pos int64) (*Object, error) {
	var (
		o      *Object
		from   int64
		inBase bool
	)
	h.mu.RLock()
	for i := len(h.bases) - 1; i >= 0; i-- {
		if b := h.bases[i]; b.at[k] <= pos {
			o, from, inBase = b.objs[stream], b.at[k], true
			break
		}
	}
	h.mu.RUnlock()
	if !inBase {
		o, err := h.fromSnapshot(ctx, k, stream, pos)
		if err != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
		return o, nil
	}
	recs, err := h.store.ReadStreamRange(ctx, stream, from, pos)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	h.metrics.readHistory(len(recs))
	for _, rec := range recs {
		o = h.fold(k, o, rec)
	}
	return o, nil
}

// StateAt is the object of resource held in stream as it stood at log
// position pos, however old, folded from the hub's bases, a snapshot or
// the log; nil when the stream had no event by then. A position the hub
// has not read yet fails with a *TooLargeError.
func (h *Hub) StateAt(ctx context.Context, resource, stream string, pos int64) (*Object, error) {
	k, err := h.kindIndex(resource)
	if err != nil {
		return nil, err
	}
	if cur := h.Position(); pos > cur {
		return nil, &TooLargeError{Position: pos, Current: cur}
	}
	return h.stateAt(ctx, k, stream, pos)
}

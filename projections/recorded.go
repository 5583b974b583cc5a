package projections

import (
	"context"
	"fmt"

	"herd/domain"
)

// AppendRecorded appends evs, events another log recorded, to stream as
// they are: no decision is made on them, but they go through the unit
// of work like any command's (the stream's next version, the views
// folded and written, the commit announced to the reconcilers), stamped
// with the Writer's clock and the metadata ctx carries. The what-if
// feeds a simulated log what nodes and operators sent this way: an
// event the outside sent is an input, not something herd decides again.
func (w *Writer) AppendRecorded(ctx context.Context, stream string, evs []domain.Event) error {
	v, ok := viewOf(stream)
	if !ok {
		return fmt.Errorf("append recorded events to %s: no aggregate of herd's owns the stream", stream)
	}
	key, ok := v.log().Key(stream)
	if !ok {
		return fmt.Errorf("append recorded events to %s: not a stream of %s", stream, v.log().Name())
	}
	return v.appendRecorded(ctx, w, key, evs)
}

func (a *aggregate[S]) appendRecorded(ctx context.Context, w *Writer, key string, evs []domain.Event) error {
	_, err := a.update(ctx, w, key, func(S) ([]domain.Event, error) { return evs, nil })
	return err
}

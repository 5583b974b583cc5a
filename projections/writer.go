package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
)

// Writer is the unit of work: it loads an aggregate from its view row,
// lets the domain decide, appends the resulting events with the expected
// version and updates the inline views — all in one SQLite transaction.
// It implements domain.NodeRepository.
type Writer struct {
	store   *events.Store
	clock   clock.PassiveClock
	metrics *Metrics
}

var _ domain.NodeRepository = (*Writer)(nil)

// NewWriter returns a Writer appending to store, stamping records with
// clk's time. metrics may be nil.
func NewWriter(store *events.Store, clk clock.PassiveClock, metrics *Metrics) *Writer {
	return &Writer{store: store, clock: clk, metrics: metrics}
}

// UpdateNode implements domain.NodeRepository.
func (w *Writer) UpdateNode(ctx context.Context, name string, update func(domain.Node) ([]domain.Event, error)) (domain.Node, error) {
	var out domain.Node
	err := w.inTx(ctx, func(tx *sql.Tx) error {
		n, err := loadNode(ctx, tx, name)
		if errors.Is(err, domain.ErrNotFound) {
			n, err = domain.Node{Name: name}, nil
		}
		if err != nil {
			return err
		}
		evs, err := update(n)
		if err != nil {
			return err
		}
		out, err = w.appendNode(ctx, tx, n, evs)
		return err
	})
	return out, err
}

// GetNode implements domain.NodeRepository.
func (w *Writer) GetNode(ctx context.Context, name string) (domain.Node, error) {
	return NewNodeView(w.store.DB()).Get(ctx, name)
}

// appendNode appends evs to n's stream and folds them into the views.
func (w *Writer) appendNode(ctx context.Context, tx *sql.Tx, n domain.Node, evs []domain.Event) (domain.Node, error) {
	if len(evs) == 0 {
		return n, nil
	}
	stream := domain.NodeStream(n.Name)
	recs, stored, err := w.appendStored(ctx, tx, stream, n.Version, evs)
	if err != nil {
		return n, err
	}
	for i, rec := range recs {
		ev := stored[i]
		n = applyNode(n, rec, ev)
		for _, e := range timelineEntries(n.Name, rec, ev) {
			if _, err := tx.ExecContext(ctx, insertTimelineSQL, e.args(0)...); err != nil {
				return n, fmt.Errorf("timeline %s@%d: %w", n.Name, rec.Position, err)
			}
		}
	}
	row, err := toNodeRow(n)
	if err != nil {
		return n, err
	}
	if _, err := tx.ExecContext(ctx, upsertNodeSQL, row.args()...); err != nil {
		return n, fmt.Errorf("node view %s: %w", n.Name, err)
	}
	return n, nil
}

// appendStored appends evs to stream at the expected version and returns
// the records with their events decoded back from what was stored: views
// fold stored events, not the caller's, because a rebuild folds stored
// events and the two must agree to the byte.
func (w *Writer) appendStored(ctx context.Context, tx *sql.Tx, stream string, expected int64, evs []domain.Event) ([]events.Record, []domain.Event, error) {
	pending, err := encodeEvents(evs)
	if err != nil {
		return nil, nil, err
	}
	// Append latency is wall time on purpose: a metric of what the append
	// cost, not a domain time (those come from w.clock).
	start := time.Now()
	recs, err := w.store.Append(ctx, tx, stream, expected, events.MetadataFrom(ctx), w.clock.Now(), pending...)
	if err != nil {
		return nil, nil, fmt.Errorf("append %s@%d: %w", stream, expected, mapConflict(err))
	}
	w.metrics.observeAppend(len(recs), time.Since(start), recs[len(recs)-1].Position)
	stored := make([]domain.Event, len(recs))
	for i, rec := range recs {
		if stored[i], err = domain.UnmarshalEvent(rec.Type, rec.Payload); err != nil {
			return nil, nil, fmt.Errorf("decode %s@%d: %w", stream, rec.Version, err)
		}
	}
	return recs, stored, nil
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE: the DSN's _txlock),
// committing when fn succeeds and rolling back otherwise.
func (w *Writer) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := w.store.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := w.store.Commit(tx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// encodeEvents turns domain events into the log's type-plus-bytes form.
func encodeEvents(evs []domain.Event) ([]events.NewEvent, error) {
	out := make([]events.NewEvent, len(evs))
	for i, ev := range evs {
		payload, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", ev.EventType(), err)
		}
		out[i] = events.NewEvent{Type: ev.EventType(), SchemaVersion: domain.SchemaVersion(ev.EventType()), Payload: payload}
	}
	return out, nil
}

// mapConflict turns the log's optimistic-concurrency failure into the
// domain's, keeping the original in the chain.
func mapConflict(err error) error {
	if errors.Is(err, events.ErrConflict) {
		return fmt.Errorf("%w: %w", domain.ErrConflict, err)
	}
	return err
}

package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
)

const lastInsertRowIDQuery = `SELECT last_insert_rowid()`

// Append stores evs as the next events of stream, inside tx, and returns
// them as stored. expectedVersion is the stream's version as the caller
// last saw it (0 for a new stream); if the stream is elsewhere (its
// highest version stored is another), Append stores nothing and returns
// a *ConflictError (errors.Is ErrConflict), and tx is still usable,
// normally to roll back. tx must be a write transaction (it holds the
// write lock from its BEGIN, see events/db.go). Nothing is visible to readers
// or subscribers until tx commits. All events get the time at and the
// metadata md. No events is a no-op. The records share evs' payload
// bytes; do not change them afterwards.
//
// Commit tx with Store.Commit, so that the log's followers hear of the
// events at once.
//
// The events go through a watermill-sql publisher made for tx, one INSERT
// for up to 3276 events (SQLite's limit on bound values), so their
// positions are consecutive.
func (s *Store) Append(ctx context.Context, tx *sql.Tx, stream string, expectedVersion int64, md Metadata, at time.Time, evs ...NewEvent) ([]Record, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	if err := checkAppend(stream, expectedVersion, at, evs); err != nil {
		return nil, err
	}
	at = at.UTC()
	records := make([]Record, len(evs))
	msgs := make(message.Messages, len(evs))
	for i, ev := range evs {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("append %s: event id: %w", stream, err)
		}
		records[i] = Record{
			ID:            id.String(),
			Stream:        stream,
			Version:       expectedVersion + int64(i) + 1,
			Type:          ev.Type,
			SchemaVersion: max(ev.SchemaVersion, 1),
			RecordedAt:    at,
			Payload:       json.RawMessage(ev.Payload),
			Metadata:      md,
			Continues:     i > 0,
		}
		msgs[i] = appendMessage(ctx, &records[i])
	}

	// The stream must stand at expectedVersion: read once here, before
	// any row goes in (migration 0007_append_checks_version.sql). tx holds
	// the write lock, so nobody moves the stream before the INSERT.
	var actual int64
	if err := tx.QueryRowContext(ctx, streamVersionQuery, stream).Scan(&actual); err != nil {
		return nil, fmt.Errorf("append %s@%d: read the stream's version: %w", stream, expectedVersion, err)
	}
	if actual != expectedVersion {
		return nil, &ConflictError{Stream: stream, Expected: expectedVersion, Actual: actual}
	}
	pub, err := wsql.NewPublisher(wsql.TxFromStdSQL(tx), wsql.PublisherConfig{SchemaAdapter: s.schema}, s.logger)
	if err != nil {
		return nil, fmt.Errorf("append %s: %w", stream, err)
	}
	for start := 0; start < len(msgs); start += maxInsertBatch {
		end := min(start+maxInsertBatch, len(msgs))
		if err := pub.Publish(Topic, msgs[start:end]...); err != nil {
			return nil, appendError(ctx, tx, stream, expectedVersion, err)
		}
		var last int64
		if err := tx.QueryRowContext(ctx, lastInsertRowIDQuery).Scan(&last); err != nil {
			return nil, fmt.Errorf("append %s@%d: read position: %w", stream, expectedVersion, err)
		}
		for i := start; i < end; i++ {
			records[i].Position = last - int64(end-1-i)
		}
	}
	return records, nil
}

func checkAppend(stream string, expectedVersion int64, at time.Time, evs []NewEvent) error {
	var errs []error
	if stream == "" {
		errs = append(errs, errors.New("stream is empty"))
	}
	if expectedVersion < 0 {
		errs = append(errs, fmt.Errorf("expected version %d is negative", expectedVersion))
	}
	if at.IsZero() {
		errs = append(errs, errors.New("time is zero"))
	} else if err := checkTimeRange(at); err != nil {
		errs = append(errs, err)
	}
	for i, ev := range evs {
		if ev.Type == "" {
			errs = append(errs, fmt.Errorf("event %d: type is empty", i))
		}
		if ev.SchemaVersion < 0 {
			errs = append(errs, fmt.Errorf("event %d (%s): schema version %d is negative", i, ev.Type, ev.SchemaVersion))
		}
		if !json.Valid(ev.Payload) {
			errs = append(errs, fmt.Errorf("event %d (%s): payload is not JSON", i, ev.Type))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("append %s@%d: %w", stream, expectedVersion, err)
	}
	return nil
}

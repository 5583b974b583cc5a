package events

import (
	"database/sql"
	"encoding/json"

	"fmt"
	"time"

	gojson "github.com/goccy/go-json"
)

// Record is one event as stored.
type Record struct {
	// Position is the event's place in the whole log, starting at 1. It only
	// grows; a view's resourceVersion is the Position of the last event that
	// touched it.
	Position int64
	// ID is the event's uuid.
	ID string
	// Stream names what the event happened to: "node/web-01",
	// "pod/default/nginx", "ipam/default".
	Stream string
	// Version is the event's place in its stream, starting at 1, without
	// gaps.
	Version int64
	// Type is the event's name, such as "NodeRegistered".
	Type string
	// SchemaVersion is the version of Type's payload shape, starting at 1.
	SchemaVersion int
	// RecordedAt is when the event was appended, by herd's clock, in UTC.
	RecordedAt time.Time
	// Payload is the event body as JSON.
	Payload json.RawMessage
	// Metadata says who caused the event and why.
	Metadata Metadata
	// Continues says the event was appended by the same write as the
	// event before it in its stream (one command's events are one
	// write): watchers see the write as one version of its object. The
	// log stores it with the metadata; events written before herd kept it
	// read as writes of their own.
	Continues bool
}

// NewEvent is one event to append.
type NewEvent struct {
	// Type is the event's name, such as "NodeRegistered". Required.
	Type string
	// SchemaVersion is the version of the payload shape; 0 means 1.
	SchemaVersion int
	// Payload is the event body as JSON. Required: "{}" for an empty body.
	Payload []byte
}

// recordColumns are the columns scanRecord reads, in its order.
const recordColumns = `position, event_id, stream, version, type, schema_version, recorded_at, payload, metadata`

// scanRecord reads one row selected with recordColumns.
func scanRecord(row interface{ Scan(...any) error }) (Record, error) {
	var (
		r          Record
		recordedAt int64
		payload    []byte
		metadata   []byte
	)
	if err := row.Scan(&r.Position, &r.ID, &r.Stream, &r.Version, &r.Type, &r.SchemaVersion,
		&recordedAt, &payload, &metadata); err != nil {
		return Record{}, err
	}
	r.RecordedAt = time.Unix(0, recordedAt).UTC()
	r.Payload = payload
	if len(metadata) > 0 {
		// goccy/go-json decodes as encoding/json does, in a fraction of
		// the time: every reader of the log decodes every event's
		// metadata (the watch hub, the dispatcher, a what-if replay).
		var stored storedMetadata
		if err := gojson.Unmarshal(metadata, &stored); err != nil {
			// The position is kept: a follower sets the record aside by it.
			return Record{Position: r.Position}, &unreadableError{position: r.Position, err: fmt.Errorf("metadata: %w", err)}
		}
		r.Metadata, r.Continues = stored.Metadata, stored.Continues
	}
	return r, nil
}

// scanChunk is how many records scanRecords fills before it starts
// another slice, rather than growing one.
const scanChunk = 1024

// scanRecords reads every row, closing rows. Past scanChunk records it
// fills slices of scanChunk and joins them once at the end: growing one
// slice to 10,000 records (what an event led to) copied each record
// about four times.
func scanRecords(rows *sql.Rows) (_ []Record, err error) {
	defer func() {
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}()
	var (
		records []Record
		full    [][]Record
		n       int
	)
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		if len(records) == scanChunk {
			full = append(full, records)
			records = make([]Record, 0, scanChunk)
		}
		records = append(records, r)
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if full == nil {
		return records, nil
	}
	all := make([]Record, 0, n)
	for _, c := range full {
		all = append(all, c...)
	}
	return append(all, records...), nil
}

// unreadableError is a stored event that cannot be read (its metadata is
// not JSON, say), by its position: a follower delivers it as a message
// that says so, rather than stop at it for ever, and a read that fails
// for any other reason (a lost connection) is told apart from it.
type unreadableError struct {
	position int64
	err      error
}

func (e *unreadableError) Error() string { return fmt.Sprintf("event %d %v", e.position, e.err) }
func (e *unreadableError) Unwrap() error { return e.err }

package events

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
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
	return r, r.setMetadata(metadata, nil)
}

// setMetadata sets r's Metadata and Continues from its stored metadata
// column (none when empty); names, when not nil, gives the strings it
// repeats.
func (r *Record) setMetadata(metadata []byte, names *interner) error {
	if len(metadata) == 0 {
		return nil
	}
	stored, err := decodeMetadata(metadata, names)
	if err != nil {
		// The position is kept: a follower sets the record aside by it.
		*r = Record{Position: r.Position}
		return &unreadableError{position: r.Position, err: err}
	}
	r.Metadata, r.Continues = stored.Metadata, stored.Continues
	return nil
}

// recordScanner reads the rows of one read, selected with
// recordColumns, keeping between rows what a row's reading needs and
// its record does not: the driver's bytes of the payload and metadata,
// read in place rather than copied for each row, and the strings the
// metadata repeats. Payloads are copied into blocks shared by several
// records rather than one allocation each.
type recordScanner struct {
	payload, metadata sql.RawBytes
	names             interner
	block             []byte
}

// payloadBlock is the size of the blocks payloads are copied into; a
// payload larger than a quarter of one gets its own. A record kept
// after its read keeps its block: small blocks bound what one record
// kept for long (a cause, a reconciler's last look) holds.
const payloadBlock = 2 << 10

// scan reads the row rows is at.
func (s *recordScanner) scan(rows *sql.Rows) (Record, error) {
	var (
		r          Record
		recordedAt int64
	)
	if err := rows.Scan(&r.Position, &r.ID, &r.Stream, &r.Version, &r.Type, &r.SchemaVersion,
		&recordedAt, &s.payload, &s.metadata); err != nil {
		return Record{}, err
	}
	r.RecordedAt = time.Unix(0, recordedAt).UTC()
	r.Payload = s.copyPayload(s.payload)
	return r, r.setMetadata(s.metadata, &s.names)
}

// copyPayload is a copy of p that the driver does not own, whose
// capacity ends with it: a caller that appends to one record's payload
// does not write into the next one's. The column is never NULL; an
// empty one reads as an empty payload, not a nil one, as it did when
// each was copied on its own.
func (s *recordScanner) copyPayload(p []byte) json.RawMessage {
	if len(p) == 0 {
		return json.RawMessage{}
	}
	if len(p) > payloadBlock/4 {
		return bytes.Clone(p)
	}
	if len(p) > cap(s.block)-len(s.block) {
		s.block = make([]byte, 0, payloadBlock)
	}
	at := len(s.block)
	s.block = append(s.block, p...)
	return json.RawMessage(s.block[at:len(s.block):len(s.block)])
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
		scanner recordScanner
	)
	for rows.Next() {
		r, err := scanner.scan(rows)
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

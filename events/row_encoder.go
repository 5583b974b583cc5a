package events

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
)

// insertRow is one message as the column values of the events table.
type insertRow struct {
	stream        string
	version       int64
	typ           string
	schemaVersion int64
	recordedAt    int64 // unix nanoseconds, UTC
	metadata      any   // JSON string, or nil for no metadata
	actor         any   // string
	causationID   any   // string
}

// rowEncoder turns message metadata into column values. The messages of
// one append share their time and metadata, so it remembers the last ones
// and converts each only once per batch.
type rowEncoder struct {
	lastTime      string
	lastNanos     int64
	lastMetadata  Metadata
	lastContinues bool
	lastJSON      any
	// The last actor and cause as arguments, and their strings.
	lastActor, lastCause       string
	lastActorArg, lastCauseArg any
}

func (e *rowEncoder) encode(id string, m message.Metadata) (insertRow, error) {
	var row insertRow
	var ok bool
	if id == "" {
		return row, fmt.Errorf("events: message without uuid")
	}
	if row.stream, ok = m[KeyStream]; !ok || row.stream == "" {
		return row, missingKey(id, KeyStream)
	}
	if row.typ, ok = m[KeyType]; !ok || row.typ == "" {
		return row, missingKey(id, KeyType)
	}
	var err error
	if row.version, err = strconv.ParseInt(m[KeyVersion], 10, 64); err != nil {
		return row, fmt.Errorf("events: message %s: %s: %w", id, KeyVersion, err)
	}
	if row.schemaVersion, err = strconv.ParseInt(m[KeySchemaVersion], 10, 64); err != nil {
		return row, fmt.Errorf("events: message %s: %s: %w", id, KeySchemaVersion, err)
	}
	if row.recordedAt, err = e.nanos(m[KeyRecordedAt]); err != nil {
		return row, fmt.Errorf("events: message %s: %s: %w", id, KeyRecordedAt, err)
	}
	md := Metadata{Actor: m[KeyActor], CausationID: m[KeyCausationID], CorrelationID: m[KeyCorrelationID], Source: m[KeySource]}
	row.actor, row.causationID = e.columns(md)
	if row.metadata, err = e.json(md, m[KeyContinues] == "true"); err != nil {
		return row, fmt.Errorf("events: message %s: metadata: %w", id, err)
	}
	return row, nil
}

func (e *rowEncoder) nanos(s string) (int64, error) {
	if s == e.lastTime && s != "" {
		return e.lastNanos, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, err
	}
	if err := checkTimeRange(t); err != nil {
		return 0, err
	}
	e.lastTime, e.lastNanos = s, t.UnixNano()
	return e.lastNanos, nil
}

// columns are md's actor and causation id as the arguments of their
// columns, converted once for the messages of one append, which share
// them.
func (e *rowEncoder) columns(md Metadata) (actor, cause any) {
	if e.lastActorArg == nil || md.Actor != e.lastActor {
		e.lastActor, e.lastActorArg = md.Actor, md.Actor
	}
	if e.lastCauseArg == nil || md.CausationID != e.lastCause {
		e.lastCause, e.lastCauseArg = md.CausationID, md.CausationID
	}
	return e.lastActorArg, e.lastCauseArg
}

func (e *rowEncoder) json(md Metadata, continues bool) (any, error) {
	if md.IsZero() && !continues {
		return nil, nil
	}
	if md == e.lastMetadata && continues == e.lastContinues && e.lastJSON != nil {
		return e.lastJSON, nil
	}
	b, err := metadataJSON(md, continues)
	if err != nil {
		return nil, err
	}
	e.lastMetadata, e.lastContinues, e.lastJSON = md, continues, string(b)
	return e.lastJSON, nil
}

func missingKey(id, key string) error {
	return fmt.Errorf("events: message %s has no %q metadata; publish through Store.Append", id, key)
}

// Times are stored as int64 nanoseconds since 1970, which covers the
// years 1678 to 2262.
var (
	minTime = time.Unix(0, -1<<63).UTC()
	maxTime = time.Unix(0, 1<<63-1).UTC()
)

func checkTimeRange(t time.Time) error {
	if t.Before(minTime) || t.After(maxTime) {
		return fmt.Errorf("time %s is outside the storable range %d–%d", t.Format(time.RFC3339), minTime.Year(), maxTime.Year())
	}
	return nil
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
)

// Topic is the watermill topic of the log; its table is the events table.
const Topic = "events"

// Keys of the watermill message metadata that carry a Record's fields. A
// message's UUID is the event id and its payload the event payload. A
// router can route on KeyType without decoding anything.
const (
	KeyPosition      = "position"
	KeyStream        = "stream"
	KeyVersion       = "version"
	KeyType          = "type"
	KeySchemaVersion = "schema_version"
	KeyRecordedAt    = "recorded_at" // RFC3339Nano, UTC
	KeyActor         = "actor"
	KeyCausationID   = "causation_id"
	KeyCorrelationID = "correlation_id" // watermill's middleware.CorrelationIDMetadataKey
	KeySource        = "source"
	// KeyContinues is "true" on an event that continues the write of the
	// one before it (Record.Continues), absent otherwise.
	KeyContinues = "continues"
	// keyUnreadable marks a message a Follower made for a stored event it
	// could not read, so that its consumer sets it aside by its position.
	keyUnreadable = "unreadable"
)

// toMessage is r as a watermill message. Position is left out while it is
// unknown (zero), that is while the message is being published.
func toMessage(r *Record, recordedAt string) *message.Message {
	msg := message.NewMessage(r.ID, message.Payload(r.Payload))
	m := msg.Metadata
	if r.Position != 0 {
		m[KeyPosition] = strconv.FormatInt(r.Position, 10)
	}
	m[KeyStream] = r.Stream
	m[KeyVersion] = strconv.FormatInt(r.Version, 10)
	m[KeyType] = r.Type
	m[KeySchemaVersion] = strconv.Itoa(r.SchemaVersion)
	m[KeyRecordedAt] = recordedAt
	setIfNotEmpty(m, KeyActor, r.Metadata.Actor)
	setIfNotEmpty(m, KeyCausationID, r.Metadata.CausationID)
	setIfNotEmpty(m, KeyCorrelationID, r.Metadata.CorrelationID)
	setIfNotEmpty(m, KeySource, r.Metadata.Source)
	if r.Continues {
		m[KeyContinues] = "true"
	}
	return msg
}

// recordKey carries, in the context of a message being appended, the
// Record it stands for.
type recordKey struct{}

// appendMessage is r as a message for the publisher of Append. The
// schema adapter reads the Record from the message's context rather than
// from string metadata: formatting a version, a time and the metadata as
// strings only for InsertQuery to parse them back cost a heartbeat a
// good part of its time inside the write lock. The publisher executes
// the insert with the first message's context, ctx.
func appendMessage(ctx context.Context, r *Record) *message.Message {
	msg := message.NewMessage(r.ID, message.Payload(r.Payload))
	msg.SetContext(context.WithValue(ctx, recordKey{}, r))
	return msg
}

// appendedRecord is the Record of a message made by appendMessage, or nil.
func appendedRecord(msg *message.Message) *Record {
	r, _ := msg.Context().Value(recordKey{}).(*Record)
	return r
}

func setIfNotEmpty(m message.Metadata, key, value string) {
	if value != "" {
		m[key] = value
	}
}

// followedKey carries, in the context of a message a Follower delivers,
// the Record it stands for.
type followedKey struct{}

// followedMessage is r as a Follower delivers it: its metadata holds only
// what a router routes on (position, stream and type); the Record itself
// travels in the message's context (deliver puts it there), so that its
// consumer takes it as it was read, rather than formatting every field
// as a string here for RecordFromMessage to parse back.
func followedMessage(r *Record) *message.Message {
	msg := message.NewMessage(r.ID, message.Payload(r.Payload))
	msg.Metadata[KeyPosition] = strconv.FormatInt(r.Position, 10)
	msg.Metadata[KeyStream] = r.Stream
	msg.Metadata[KeyType] = r.Type
	return msg
}

// RecordFromMessage is the Record a subscribed message carries. It fails on
// a message that did not come from the log.
func RecordFromMessage(msg *message.Message) (Record, error) {
	if r, ok := msg.Context().Value(followedKey{}).(*Record); ok {
		return *r, nil
	}
	if why := msg.Metadata[keyUnreadable]; why != "" {
		return Record{}, fmt.Errorf("event %s is unreadable: %s", msg.Metadata[KeyPosition], why)
	}
	r, err := fromMetadata(msg.UUID, msg.Metadata, true)
	if err != nil {
		return Record{}, err
	}
	r.Payload = json.RawMessage(msg.Payload)
	return r, nil
}

// fromMetadata reads a Record, payload aside, from message metadata. A
// message being published has no position yet.
func fromMetadata(id string, m message.Metadata, needPosition bool) (Record, error) {
	var errs []error
	field := func(key string) string {
		v, ok := m[key]
		if !ok || v == "" {
			errs = append(errs, fmt.Errorf("no %s", key))
		}
		return v
	}
	integer := func(key string) int64 {
		v := field(key)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil && v != "" {
			errs = append(errs, fmt.Errorf("%s %q is not an integer", key, v))
		}
		return n
	}
	r := Record{ID: id, Stream: field(KeyStream), Type: field(KeyType)}
	if needPosition {
		r.Position = integer(KeyPosition)
	}
	r.Version = integer(KeyVersion)
	r.SchemaVersion = int(integer(KeySchemaVersion))
	if v := field(KeyRecordedAt); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", KeyRecordedAt, err))
		}
		r.RecordedAt = t.UTC()
	}
	if id == "" {
		errs = append(errs, errors.New("no uuid"))
	}
	r.Metadata = Metadata{Actor: m[KeyActor], CausationID: m[KeyCausationID], CorrelationID: m[KeyCorrelationID], Source: m[KeySource]}
	r.Continues = m[KeyContinues] == "true"
	if err := errors.Join(errs...); err != nil {
		return Record{}, fmt.Errorf("message %s is not a herd event: %w", id, err)
	}
	return r, nil
}

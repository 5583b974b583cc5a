package httpapi

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"herd/events"
)

// An audit page is written as encoding/json's Encoder writes the
// AuditEventList (its final newline included), without making an
// AuditEvent of each record or going through reflection: an audit page
// is up to 10,000 events (what a drain led to), and encoding them as
// encoding/json does took a third of the answer's time. A string that
// needs escaping, a payload that is not already compact and safe, and
// the page's thinned note are encoded by encoding/json itself. An error
// (a payload that is not JSON, a time encoding/json refuses) says
// encoding/json would fail too; the caller answers as it would.
//
// The page is its head (appendAuditListHead), its items each
// (appendAuditEvent, kept in auditItems) after a comma but the first,
// and its tail (auditListTail): the audit API encodes the items as the
// log is read.

// auditListTail ends a list after its items.
const auditListTail = "]}\n"

// appendAuditListHead appends what comes before list's items, the
// opening of their array included.
func appendAuditListHead(b []byte, list *AuditEventList) ([]byte, error) {
	b = append(b, `{"apiVersion":`...)
	b = appendJSONString(b, list.APIVersion)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, list.Kind)
	b = append(b, `,"metadata":{`...)
	if v := list.Metadata.ResourceVersion; v != "" {
		b = append(b, `"resourceVersion":`...)
		b = appendJSONString(b, v)
	}
	if v := list.Metadata.Continue; v != "" {
		if list.Metadata.ResourceVersion != "" {
			b = append(b, ',')
		}
		b = append(b, `"continue":`...)
		b = appendJSONString(b, v)
	}
	b = append(b, '}')
	if list.Thinned != nil {
		t, err := json.Marshal(list.Thinned)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"thinned":`...), t...)
	}
	return append(b, `,"items":[`...), nil
}

// appendAuditEvent appends rec as encoding/json writes toAuditEvent(rec).
func appendAuditEvent(b []byte, rec *events.Record) ([]byte, error) {
	b = append(b, `{"position":`...)
	b = strconv.AppendInt(b, rec.Position, 10)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, rec.ID)
	b = append(b, `,"stream":`...)
	b = appendJSONString(b, rec.Stream)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, rec.Version, 10)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, rec.Type)
	b = append(b, `,"schemaVersion":`...)
	b = strconv.AppendInt(b, int64(rec.SchemaVersion), 10)
	b = append(b, `,"recordedAt":`...)
	var err error
	if b, err = appendJSONTime(b, rec.RecordedAt); err != nil {
		return nil, err
	}
	md := &rec.Metadata
	for _, f := range [...]struct{ key, value string }{
		{`,"actor":`, md.Actor}, {`,"causationId":`, md.CausationID},
		{`,"correlationId":`, md.CorrelationID}, {`,"source":`, md.Source},
	} {
		if f.value != "" {
			b = appendJSONString(append(b, f.key...), f.value)
		}
	}
	if rec.Continues {
		b = append(b, `,"continuesWrite":true`...)
	}
	b = append(b, `,"payload":`...)
	if b, err = appendJSONPayload(b, rec.Payload); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendJSONString appends s as encoding/json writes a string: as it
// is when every byte is printable ASCII that needs no escape (HTML's
// <, > and & included, as the Encoder escapes them), else by
// encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONTime appends t as its MarshalJSON does: RFC 3339 with the
// nanoseconds it has, for the years 0 to 9999, and an error for others.
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		return nil, errors.New("recorded time outside years 0 to 9999")
	}
	if _, offset := t.Zone(); offset != 0 {
		// Every record is UTC; another zone is MarshalJSON's to write.
		m, err := t.MarshalJSON()
		return append(b, m...), err
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// appendJSONPayload appends p as encoding/json writes a json.RawMessage
// with HTML escaped: p itself when it is valid JSON with nothing to
// compact or escape (no space outside strings, no <, >, &, U+2028 or
// U+2029), else what encoding/json makes of it.
func appendJSONPayload(b []byte, p json.RawMessage) ([]byte, error) {
	if p == nil {
		return append(b, "null"...), nil
	}
	for _, c := range p {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xe2: // 0xe2 begins U+2028 and U+2029
			m, err := json.Marshal(p)
			return append(b, m...), err
		}
	}
	if !json.Valid(p) {
		return nil, errors.New("payload is not JSON")
	}
	return append(b, p...), nil
}

package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
)

// Audit list limits: a page defaults to 500 records, as kubectl's chunked
// lists do, and never exceeds 10,000 so one request cannot pull the whole
// log into memory.
const (
	defaultAuditLimit = 500
	maxAuditLimit     = 10000
)

// AuditEvent is one record of the log as the audit API shows it.
type AuditEvent struct {
	Position      int64     `json:"position"`
	ID            string    `json:"id"`
	Stream        string    `json:"stream"`
	Version       int64     `json:"version"`
	Type          string    `json:"type"`
	SchemaVersion int       `json:"schemaVersion"`
	RecordedAt    time.Time `json:"recordedAt"`
	Actor         string    `json:"actor,omitempty"`
	CausationID   string    `json:"causationId,omitempty"`
	CorrelationID string    `json:"correlationId,omitempty"`
	Source        string    `json:"source,omitempty"`
	// ContinuesWrite says the event was appended by the same write (one
	// command) as the event before it in its stream.
	ContinuesWrite bool            `json:"continuesWrite,omitempty"`
	Payload        json.RawMessage `json:"payload"`
}

// AuditEventList is a page of the audit log. Metadata.Continue, when set,
// is the token for the next page.
type AuditEventList struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		ResourceVersion string `json:"resourceVersion,omitempty"`
		Continue        string `json:"continue,omitempty"`
	} `json:"metadata"`
	// Thinned is set when the page reaches into the part of the log the
	// heartbeat retention policy has thinned: not every heartbeat
	// recorded before Thinned.Before is there.
	Thinned *AuditThinned `json:"thinned,omitempty"`
	Items   []AuditEvent  `json:"items"`
}

// AuditThinned says where, and how far, the log's history was thinned.
type AuditThinned struct {
	// Before is the recorded time before which superseded plain
	// heartbeats were deleted.
	Before time.Time `json:"before"`
	// ThroughPosition is the compaction point: a watch at an older
	// resourceVersion gets 410 Expired, and an exact list there (the
	// past) shows each node's last heartbeat the log still holds.
	ThroughPosition int64 `json:"throughPosition"`
	// DeletedHeartbeats is how many heartbeats were deleted in all.
	DeletedHeartbeats int64 `json:"deletedHeartbeats"`
	// Message says it in words.
	Message string `json:"message"`
}

// auditEventKind serves herd's audit trail: every event in the log, with
// its actor and cause, listed (herd.dev, JSON only).
func (s *Server) auditEventKind() *kind {
	return &kind{gv: herdGV, resource: "auditevents", singular: "auditevent", name: "AuditEvent",
		verbs: verbs{list: s.listAuditEvents}}
}

// listAuditEvents serves the audit log: ?stream= (exact, or a prefix when it
// ends in "/"), ?type= (comma-separated; an event holding one among
// its parts too, auditParts), ?actor= (exact), ?since= and
// ?until= (RFC 3339), ?after= (a log position), ?limit= and ?continue=, or
// ?tail= for the newest events that match, with ?before= (a log position)
// paging back from there; ?id= is the one event of that id (an event's
// causationId, to follow what caused it), or none; ?causedBy= (an event
// id) is what that event led to, directly or through others. ?excludeType=
// (comma-separated) leaves those types out, in the query itself, so that
// a page of the log without heartbeats is still a full page.
func (s *Server) listAuditEvents(w http.ResponseWriter, r *http.Request) {
	r, done, ok := s.expensiveRead(w, r, "AuditEvent")
	if !ok {
		return
	}
	defer done()
	f, parts, err := auditFilter(r)
	if err != nil {
		s.writeError(w, err, "AuditEvent", "")
		return
	}
	list := AuditEventList{APIVersion: herdGroup + "/" + herdVersion, Kind: "AuditEventList", Items: []AuditEvent{}}
	list.Thinned = thinnedFor(s.Log.Compaction(), f)
	// The items are encoded as the log is read, one event at a time,
	// with no list of records made first. The page's head, which says
	// whether there is a next page, is known once they are all read, and
	// nothing is sent before: a read that fails half way is answered
	// with its error (a 504 past the read's deadline), never as a page.
	var (
		items auditItems
		last  int64
	)
	defer items.release()
	// Types set but empty: every asked-for type was excluded, and
	// nothing matches (an empty Types would match everything).
	if f.Types == nil || len(f.Types) > 0 {
		err := eachAudited(r.Context(), s.Log, f, parts, func(rec *events.Record) error {
			if err := items.add(rec); err != nil {
				return unencodableError{err}
			}
			last = rec.Position
			return nil
		})
		if errors.As(err, new(unencodableError)) {
			s.writeAuditListAsEncodingJSON(w, r, f, parts, list)
			return
		}
		if err != nil {
			s.writeError(w, err, "AuditEvent", "")
			return
		}
	}
	// An id names one event: there is no next page.
	if items.n == f.Limit && !f.Newest && f.ID == "" {
		list.Metadata.Continue = strconv.FormatInt(last, 10)
	}
	head, err := appendAuditListHead(make([]byte, 0, 512), &list)
	if err != nil {
		s.writeJSON(w, http.StatusOK, list) // as encoding/json answers: it refuses the note too
		return
	}
	// The page's length is known: it goes as one body of that length,
	// not in chunks of its own (one for each of the items' chunks).
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(head)+items.size()+len(auditListTail)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(head)
	if err == nil {
		err = items.writeTo(w)
	}
	if err == nil {
		_, err = w.Write([]byte(auditListTail))
	}
	if err != nil {
		s.Logger.Debug("write response", zap.Error(err))
	}
}

// unencodableError is a record the audit page's encoder refuses, as
// encoding/json would (a payload that is not JSON).
type unencodableError struct{ err error }

func (e unencodableError) Error() string { return e.err.Error() }

// writeAuditListAsEncodingJSON answers f's page as encoding/json
// answers it, for a log holding what it refuses: the log is read again,
// as a whole, and the page given to it.
func (s *Server) writeAuditListAsEncodingJSON(w http.ResponseWriter, r *http.Request, f events.Filter, parts *auditParts, list AuditEventList) {
	err := eachAudited(r.Context(), s.Log, f, parts, func(rec *events.Record) error {
		item := toAuditEvent(*rec)
		item.Payload = bytes.Clone(rec.Payload) // the reader reuses it
		list.Items = append(list.Items, item)
		return nil
	})
	if err != nil {
		s.writeError(w, err, "AuditEvent", "")
		return
	}
	if n := len(list.Items); n == f.Limit && !f.Newest && f.ID == "" {
		list.Metadata.Continue = strconv.FormatInt(list.Items[n-1].Position, 10)
	}
	s.writeJSON(w, http.StatusOK, list)
}

// auditFilter reads the query's filter, and what reads the types asked
// for inside the events that may hold them (nil: f alone).
func auditFilter(r *http.Request) (events.Filter, *auditParts, error) {
	f, excluded, err := auditQuery(r)
	if err != nil {
		return f, nil, err
	}
	return f, carriersFor(&f, excluded), nil
}

// auditQuery reads the query's filter, and the types it excludes.
func auditQuery(r *http.Request) (events.Filter, []string, error) {
	q := r.URL.Query()
	f := events.Filter{Limit: defaultAuditLimit, ID: q.Get("id"), Actor: q.Get("actor")}
	if v := q.Get("causedBy"); v != "" {
		// What an event led to: an event's id, as the log writes it.
		id, err := uuid.Parse(v)
		if err != nil {
			return f, nil, badRequest("causedBy must be an event id (a UUID such as an audit event's id or causationId), got %q", v)
		}
		f.CausedBy = id.String()
	}
	if stream := q.Get("stream"); strings.HasSuffix(stream, "/") {
		f.StreamPrefix = stream
	} else {
		f.Stream = stream
	}
	var err error
	if f.Types, err = eventTypesParam(q.Get("type"), "type"); err != nil {
		return f, nil, err
	}
	excluded, err := eventTypesParam(q.Get("excludeType"), "excludeType")
	if err != nil {
		return f, nil, err
	}
	if len(excluded) > 0 {
		// The types not excluded, said as the types wanted: the log's
		// query already selects by type, and every recorded type is a
		// registered one.
		if f.Types == nil {
			f.Types = domain.EventTypes()
		}
		f.Types = slices.DeleteFunc(slices.Clone(f.Types), func(t string) bool { return slices.Contains(excluded, t) })
	}
	if f.Since, err = timeParam(q.Get("since"), "since"); err != nil {
		return f, nil, err
	}
	if f.Until, err = timeParam(q.Get("until"), "until"); err != nil {
		return f, nil, err
	}
	for _, p := range []string{"after", "continue"} {
		if v := q.Get(p); v != "" {
			pos, err := strconv.ParseInt(v, 10, 64)
			if err != nil || pos < 0 {
				return f, nil, badRequest("%s must be a log position (a non-negative integer), got %q", p, v)
			}
			f.After = max(f.After, pos)
		}
	}
	if v := q.Get("before"); v != "" {
		pos, err := strconv.ParseInt(v, 10, 64)
		if err != nil || pos <= 0 {
			return f, nil, badRequest("before must be a log position (a positive integer), got %q", v)
		}
		f.Before = pos
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > maxAuditLimit {
			return f, nil, badRequest("limit must be an integer from 1 to %d, got %q", maxAuditLimit, v)
		}
		f.Limit = n
	}
	if v := q.Get("tail"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > maxAuditLimit {
			return f, nil, badRequest("tail must be an integer from 1 to %d, got %q", maxAuditLimit, v)
		}
		f.Limit, f.Newest = n, true
	}
	return f, excluded, nil
}

// eventTypesParam reads a comma-separated list of event types, each one
// herd records; nil when v is empty.
func eventTypesParam(v, name string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	types := strings.Split(v, ",")
	known := domain.EventTypes()
	for _, typ := range types {
		if !slices.Contains(known, typ) {
			return nil, badRequest("%s %q is not an event type; the types are %s", name, typ, strings.Join(known, ", "))
		}
	}
	return types, nil
}

func timeParam(v, name string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, badRequest("%s must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %q", name, v)
	}
	return t, checkTimeRange(name, v, t)
}

func toAuditEvent(rec events.Record) AuditEvent {
	return AuditEvent{
		Position: rec.Position, ID: rec.ID, Stream: rec.Stream, Version: rec.Version,
		Type: rec.Type, SchemaVersion: rec.SchemaVersion, RecordedAt: rec.RecordedAt,
		Actor: rec.Metadata.Actor, CausationID: rec.Metadata.CausationID,
		CorrelationID: rec.Metadata.CorrelationID, Source: rec.Metadata.Source, ContinuesWrite: rec.Continues,
		Payload: rec.Payload,
	}
}

// thinnedFor says how the log was thinned when f reaches back before the
// compaction and asks for heartbeats; nil otherwise.
func thinnedFor(c events.Compaction, f events.Filter) *AuditThinned {
	heartbeat := domain.HeartbeatRecorded{}.EventType()
	switch {
	case c.Deleted == 0, f.ID != "", f.After >= c.Through, !f.Since.IsZero() && !f.Since.Before(c.Before):
		return nil
	case len(f.Types) > 0 && !slices.Contains(f.Types, heartbeat):
		return nil
	}
	return &AuditThinned{
		Before: c.Before, ThroughPosition: c.Through, DeletedHeartbeats: c.Deleted,
		Message: fmt.Sprintf("history before %s is thinned: %d plain heartbeats a later heartbeat of the same node superseded were deleted "+
			"by the retention policy; each node's newest heartbeat and every other event are kept", c.Before.Format(time.RFC3339), c.Deleted),
	}
}

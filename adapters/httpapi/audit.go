package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	Position      int64           `json:"position"`
	ID            string          `json:"id"`
	Stream        string          `json:"stream"`
	Version       int64           `json:"version"`
	Type          string          `json:"type"`
	SchemaVersion int             `json:"schemaVersion"`
	RecordedAt    time.Time       `json:"recordedAt"`
	Actor         string          `json:"actor,omitempty"`
	CausationID   string          `json:"causationId,omitempty"`
	CorrelationID string          `json:"correlationId,omitempty"`
	Source        string          `json:"source,omitempty"`
	Payload       json.RawMessage `json:"payload"`
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
	Items []AuditEvent `json:"items"`
}

// listAuditEvents serves the audit log: ?stream= (exact, or a prefix when it
// ends in "/"), ?type= (comma-separated), ?since= and ?until= (RFC 3339),
// ?after= (a log position), ?limit= and ?continue=.
func (s *Server) listAuditEvents(w http.ResponseWriter, r *http.Request) {
	f, err := auditFilter(r)
	if err != nil {
		s.writeError(w, err, "AuditEvent", "")
		return
	}
	recs, err := s.Store.Query(r.Context(), s.Store.DB(), f)
	if err != nil {
		s.writeError(w, err, "AuditEvent", "")
		return
	}
	list := AuditEventList{APIVersion: herdGroup + "/" + herdVersion, Kind: "AuditEventList", Items: []AuditEvent{}}
	for _, rec := range recs {
		list.Items = append(list.Items, toAuditEvent(rec))
	}
	if len(recs) == f.Limit {
		list.Metadata.Continue = strconv.FormatInt(recs[len(recs)-1].Position, 10)
	}
	s.writeJSON(w, http.StatusOK, list)
}

func auditFilter(r *http.Request) (events.Filter, error) {
	q := r.URL.Query()
	f := events.Filter{Limit: defaultAuditLimit}
	if stream := q.Get("stream"); strings.HasSuffix(stream, "/") {
		f.StreamPrefix = stream
	} else {
		f.Stream = stream
	}
	if t := q.Get("type"); t != "" {
		f.Types = strings.Split(t, ",")
	}
	var err error
	if f.Since, err = timeParam(q.Get("since"), "since"); err != nil {
		return f, err
	}
	if f.Until, err = timeParam(q.Get("until"), "until"); err != nil {
		return f, err
	}
	for _, p := range []string{"after", "continue"} {
		if v := q.Get(p); v != "" {
			pos, err := strconv.ParseInt(v, 10, 64)
			if err != nil || pos < 0 {
				return f, badRequest("%s must be a log position (a non-negative integer), got %q", p, v)
			}
			f.After = max(f.After, pos)
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > maxAuditLimit {
			return f, badRequest("limit must be an integer from 1 to %d, got %q", maxAuditLimit, v)
		}
		f.Limit = n
	}
	return f, nil
}

func timeParam(v, name string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, badRequest("%s must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %q", name, v)
	}
	return t, nil
}

func toAuditEvent(rec events.Record) AuditEvent {
	return AuditEvent{
		Position: rec.Position, ID: rec.ID, Stream: rec.Stream, Version: rec.Version,
		Type: rec.Type, SchemaVersion: rec.SchemaVersion, RecordedAt: rec.RecordedAt,
		Actor: rec.Metadata.Actor, CausationID: rec.Metadata.CausationID,
		CorrelationID: rec.Metadata.CorrelationID, Source: rec.Metadata.Source,
		Payload: rec.Payload,
	}
}

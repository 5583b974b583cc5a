package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"herd/projections"
)

// NodeTimeline is a node's lifecycle, oldest first.
type NodeTimeline struct {
	APIVersion string                      `json:"apiVersion"`
	Kind       string                      `json:"kind"`
	Node       string                      `json:"node"`
	Items      []projections.TimelineEntry `json:"items"`
	// Continue, when entries remain after the page (it was cut at its
	// limit), is the ?after= that reads the next one: the last entry's
	// place, "position:seq", so that a page that ended inside an event's
	// entries goes on with the rest of them. Empty when the page held
	// every entry there was, as a Kubernetes list's continue.
	Continue string `json:"continue,omitempty"`
}

// nodeTimeline serves a node's lifecycle events; ?after= and ?limit= page.
// after is a log position (the entries of the events after it) or an
// entry's place, "position:seq" (the entries after that one).
func (s *Server) nodeTimeline(w http.ResponseWriter, r *http.Request) {
	r, done, ok := s.expensiveRead(w, r, "Node")
	if !ok {
		return
	}
	defer done()
	name := r.PathValue("name")
	// A deleted node keeps its timeline: only a name herd never saw is 404.
	if _, err := s.NodeView.GetIncludingDeleted(r.Context(), name); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	q := r.URL.Query()
	var after int64
	afterSeq := -1 // after the whole event at after
	limit := 0
	if v := q.Get("after"); v != "" {
		pos, seq, entry := strings.Cut(v, ":")
		var err error
		if after, err = strconv.ParseInt(pos, 10, 64); err == nil && entry {
			afterSeq, err = strconv.Atoi(seq)
			if err == nil && afterSeq < 0 {
				err = strconv.ErrRange
			}
		}
		if err != nil {
			s.writeError(w, badRequest("after must be a log position or an entry's place, position:seq (a page's continue), got %q", v), "Node", name)
			return
		}
	}
	if v := q.Get("limit"); v != "" {
		var err error
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 {
			s.writeError(w, badRequest("limit must be a non-negative integer, got %q", v), "Node", name)
			return
		}
	}
	// ?asOf= (as on lists) is the timeline as it stood then: the
	// entries up to that position.
	var upTo int64
	if v := q.Get("asOf"); v != "" {
		pos, err := s.positionAsOf(r.Context(), v)
		if err != nil {
			s.writeError(w, err, "Node", name)
			return
		}
		upTo = max(pos, 0)
		if upTo == 0 {
			upTo = -1 // before the log's first event: nothing yet
		}
	}
	read := limit
	if limit > 0 {
		read = limit + 1 // one more says whether any remain
	}
	if upTo != 0 {
		read = 0 // the bound comes first, then the limit
	}
	var (
		items []projections.TimelineEntry
		err   error
	)
	if afterSeq >= 0 {
		items, err = s.Timeline.NodeAfterEntry(r.Context(), name, after, afterSeq, read)
	} else {
		items, err = s.Timeline.Node(r.Context(), name, after, read)
	}
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if upTo != 0 {
		kept := items[:0]
		for _, it := range items {
			if it.Position <= upTo {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	more := limit > 0 && len(items) > limit
	if more {
		items = items[:limit]
	}
	if items == nil {
		items = []projections.TimelineEntry{}
	}
	page := NodeTimeline{APIVersion: herdGroup + "/" + herdVersion, Kind: "NodeTimeline", Node: name, Items: items}
	if more {
		last := items[len(items)-1]
		page.Continue = strconv.FormatInt(last.Position, 10) + ":" + strconv.Itoa(last.Seq)
	}
	s.writeJSON(w, http.StatusOK, page)
}

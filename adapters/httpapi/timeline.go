package httpapi

import (
	"net/http"
	"strconv"

	"herd/projections"
)

// NodeTimeline is a node's lifecycle, oldest first.
type NodeTimeline struct {
	APIVersion string                      `json:"apiVersion"`
	Kind       string                      `json:"kind"`
	Node       string                      `json:"node"`
	Items      []projections.TimelineEntry `json:"items"`
}

// nodeTimeline serves a node's lifecycle events; ?after= and ?limit= page.
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
	limit := 0
	if v := q.Get("after"); v != "" {
		var err error
		if after, err = strconv.ParseInt(v, 10, 64); err != nil {
			s.writeError(w, badRequest("after must be a log position, got %q", v), "Node", name)
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
	if upTo != 0 {
		read = 0 // the bound comes first, then the limit
	}
	items, err := s.Timeline.Node(r.Context(), name, after, read)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if upTo != 0 {
		kept := items[:0]
		for _, it := range items {
			if it.Position <= upTo && (limit == 0 || len(kept) < limit) {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	if items == nil {
		items = []projections.TimelineEntry{}
	}
	s.writeJSON(w, http.StatusOK, NodeTimeline{APIVersion: herdGroup + "/" + herdVersion, Kind: "NodeTimeline", Node: name, Items: items})
}

package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// A node's metric history answers with at most 10,000 points, 2,000
// unless asked (a chart a few thousand pixels wide shows no more), and
// reads the node's stream 1,000 heartbeats a query: a node may have a
// year of them, and no request holds more than a page and the answer.
const (
	defaultSeriesLimit = 2000
	maxSeriesLimit     = 10000
)

// seriesPage is a variable so that a test pages through a few heartbeats.
var seriesPage = 1000

// NodeSeries is a node's metric history: one point per heartbeat, oldest
// first.
type NodeSeries struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Node       string `json:"node"`
	// Truncated is set when more heartbeats fall in the window than the
	// limit: Items are the newest of them.
	Truncated bool `json:"truncated,omitempty"`
	// Thinned is set when the window reaches back before the heartbeat
	// retention policy's cut: there, most heartbeats are gone and the
	// gaps between those left are the policy's, not the node's.
	Thinned *AuditThinned     `json:"thinned,omitempty"`
	Items   []NodeSeriesPoint `json:"items"`
}

// NodeSeriesPoint is what one heartbeat said about the node. A figure
// the heartbeat did not carry is absent (a Pico reports none, a kubelet
// no load); percents are of the whole node, 0 to 100.
type NodeSeriesPoint struct {
	// Time is when herd recorded the heartbeat.
	Time time.Time `json:"time"`
	// Position is the heartbeat's log position.
	Position      int64    `json:"position"`
	CPUPercent    *float64 `json:"cpuPercent,omitempty"`
	MemoryPercent *float64 `json:"memoryPercent,omitempty"`
	DiskPercent   *float64 `json:"diskPercent,omitempty"`
	PIDPercent    *float64 `json:"pidPercent,omitempty"`
	// Load1, Load5 and Load15 are an agent's load averages.
	Load1  *float64 `json:"load1,omitempty"`
	Load5  *float64 `json:"load5,omitempty"`
	Load15 *float64 `json:"load15,omitempty"`
	// ActiveJobs are the jobs an agent reported.
	ActiveJobs *int `json:"activeJobs,omitempty"`
	// GapSeconds is the time since the node's previous heartbeat; absent
	// for its first, and where the previous one is older than the
	// retention policy's cut (Thinned.Before), since heartbeats between
	// the two may have been deleted.
	GapSeconds *float64 `json:"gapSeconds,omitempty"`
}

// seriesWindow is what a request for a node's metric history asks for.
type seriesWindow struct {
	since, until time.Time
	// before, when not 0, bounds the log positions read (exclusive):
	// ?asOf= and ?until=. -1 means nothing is in the window.
	before int64
	limit  int
	// thinnedBefore is the retention policy's cut: heartbeats recorded
	// before it may be gone. Zero when none were deleted.
	thinnedBefore time.Time
}

// nodeSeries serves GET .../nodes/NAME/series: the node's heartbeats
// recorded in [?since=, ?until=) (RFC 3339), as of ?asOf= (as a list's),
// the newest ?limit= of them.
func (s *Server) nodeSeries(w http.ResponseWriter, r *http.Request) {
	r, done, ok := s.expensiveRead(w, r, "Node")
	if !ok {
		return
	}
	defer done()
	name := r.PathValue("name")
	// A deleted node keeps its history: only a name herd never saw is 404.
	n, err := s.NodeView.GetIncludingDeleted(r.Context(), name)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	win, err := s.seriesWindow(r)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	c := s.Log.Compaction()
	if c.Deleted > 0 {
		win.thinnedBefore = c.Before
	}
	out := NodeSeries{APIVersion: herdGroup + "/" + herdVersion, Kind: "NodeSeries", Node: name, Items: []NodeSeriesPoint{}}
	if win.before >= 0 {
		// A kubelet's CPU use is in nanocores; its share is of the
		// node's capacity as it stands now.
		if out.Items, out.Truncated, err = s.readSeries(r.Context(), domain.NodeStream(name), n.Capacity["cpu"], win); err != nil {
			s.writeError(w, err, "Node", name)
			return
		}
	}
	out.Thinned = thinnedFor(c, events.Filter{Since: win.since, Types: []string{domain.HeartbeatRecorded{}.EventType()}})
	s.writeJSON(w, http.StatusOK, out)
}

// seriesWindow reads the request's parameters, each checked by name.
func (s *Server) seriesWindow(r *http.Request) (seriesWindow, error) {
	q := r.URL.Query()
	win := seriesWindow{limit: defaultSeriesLimit}
	var err error
	if win.since, err = timeParam(q.Get("since"), "since"); err != nil {
		return win, err
	}
	if win.until, err = timeParam(q.Get("until"), "until"); err != nil {
		return win, err
	}
	if !win.since.IsZero() && !win.until.IsZero() && !win.since.Before(win.until) {
		return win, badRequest("since (%s) must be before until (%s)", q.Get("since"), q.Get("until"))
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > maxSeriesLimit {
			return win, badRequest("limit must be an integer from 1 to %d, got %q", maxSeriesLimit, v)
		}
		win.limit = n
	}
	bound := func(pos int64) {
		switch {
		case pos <= 0:
			win.before = -1
		case win.before == 0 || pos+1 < win.before:
			win.before = pos + 1
		}
	}
	if v := q.Get("asOf"); v != "" {
		pos, err := s.positionAsOf(r.Context(), v)
		if err != nil {
			return win, err
		}
		bound(pos)
	}
	if !win.until.IsZero() && win.before >= 0 {
		// until as a position, found through the recorded_at index: the
		// stream is then read back from there through its own index,
		// never checking the recorded time of the heartbeats after it.
		recs, err := s.Log.Query(r.Context(), events.Filter{Until: win.until, Limit: 1, Newest: true})
		if err != nil {
			return win, err
		}
		pos := int64(0)
		if len(recs) > 0 {
			pos = recs[0].Position
		}
		bound(pos)
	}
	return win, nil
}

// readSeries reads stream's heartbeats in win, newest first a page at a
// time, and stops at the first one before win.since, the stream's first,
// or one past win.limit: that one, if any, gives the oldest point its
// gap. When more than win.limit fall in the window, the newest win.limit
// are kept (truncated is true) rather than a thinned sample of them all:
// a sample would read every heartbeat of the window, a year's for a year.
func (s *Server) readSeries(ctx context.Context, stream string, cpuMillis int64, win seriesWindow) (points []NodeSeriesPoint, truncated bool, err error) {
	type beat struct {
		pos int64
		hb  domain.HeartbeatRecorded
	}
	var (
		beats    []beat // newest first
		previous *beat
	)
	f := events.Filter{Stream: stream, Types: []string{domain.HeartbeatRecorded{}.EventType()}, Before: win.before, Limit: seriesPage, Newest: true}
read:
	for {
		recs, err := s.Log.Query(ctx, f)
		if err != nil {
			return nil, false, err
		}
		for _, rec := range slices.Backward(recs) {
			ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
			if err != nil {
				return nil, false, fmt.Errorf("node series %s@%d: %w", stream, rec.Version, err)
			}
			hb, ok := ev.(domain.HeartbeatRecorded)
			if !ok {
				continue
			}
			b := beat{pos: rec.Position, hb: hb}
			if hb.At.Before(win.since) || len(beats) == win.limit {
				previous, truncated = &b, len(beats) == win.limit && !hb.At.Before(win.since)
				break read
			}
			beats = append(beats, b)
		}
		if len(recs) < f.Limit {
			break
		}
		// The next page is the stream's older versions: a range of its
		// (stream, version) index, read from where this one ended.
		f.UpToVersion = recs[0].Version - 1
		if f.UpToVersion < 1 {
			break
		}
	}
	points = make([]NodeSeriesPoint, 0, len(beats))
	for i, b := range slices.Backward(beats) {
		p := seriesPoint(b.pos, b.hb, cpuMillis)
		prev := previous
		if i+1 < len(beats) {
			prev = &beats[i+1]
		}
		if prev != nil && !prev.hb.At.Before(win.thinnedBefore) {
			gap := b.hb.At.Sub(prev.hb.At).Seconds()
			p.GapSeconds = &gap
		}
		points = append(points, p)
	}
	return points, truncated, nil
}

// seriesPoint is what heartbeat hb at pos says about its node.
func seriesPoint(pos int64, hb domain.HeartbeatRecorded, cpuMillis int64) NodeSeriesPoint {
	p := NodeSeriesPoint{Time: hb.At.UTC(), Position: pos}
	percent := func(ratio float64, ok bool) *float64 {
		if !ok {
			return nil
		}
		v := ratio * 100
		return &v
	}
	p.CPUPercent = percent(projections.CPUUsage(hb.Metrics, hb.Kubelet, cpuMillis))
	p.MemoryPercent = percent(projections.MemoryUsage(hb.Metrics, hb.Kubelet))
	p.DiskPercent = percent(projections.DiskUsage(hb.Metrics, hb.Kubelet))
	p.PIDPercent = percent(projections.PIDUsage(hb.Metrics, hb.Kubelet))
	if m := hb.Metrics; m != nil {
		p.Load1, p.Load5, p.Load15 = &m.Load1, &m.Load5, &m.Load15
		p.ActiveJobs = &m.ActiveJobs
	}
	return p
}

package features

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// auditEvent is one record of herd's log as its audit API shows it.
type auditEvent struct {
	Position   int64           `json:"position"`
	Stream     string          `json:"stream"`
	Version    int64           `json:"version"`
	Type       string          `json:"type"`
	RecordedAt time.Time       `json:"recordedAt"`
	Actor      string          `json:"actor"`
	Continues  bool            `json:"continuesWrite"`
	Payload    json.RawMessage `json:"payload"`
}

// auditPage is the most records one audit request may return.
const auditPage = 10000

// logRecords reads every record of the log that matches q, oldest first,
// page by page as an operator's tool would.
func (w *world) logRecords(q url.Values) ([]auditEvent, error) {
	var (
		out   []auditEvent
		after int64
	)
	for {
		page := url.Values{}
		for k, v := range q {
			page[k] = v
		}
		page.Set("limit", strconv.Itoa(auditPage))
		page.Set("after", strconv.FormatInt(after, 10))
		var list struct {
			Items []auditEvent `json:"items"`
		}
		if err := w.get(auditPath+"?"+page.Encode(), &list); err != nil {
			return nil, err
		}
		out = append(out, list.Items...)
		if len(list.Items) < auditPage {
			return out, nil
		}
		after = list.Items[len(list.Items)-1].Position
	}
}

// logMark is how far the log reached at one moment, seen two ways: the
// audit log's records and the node list's resourceVersion (the log head).
type logMark struct {
	records []auditEvent
	head    int64
}

func (m logMark) String() string {
	return fmt.Sprintf("%d records, head at position %d", len(m.records), m.head)
}

func (w *world) logMark() (logMark, error) {
	recs, err := w.logRecords(nil)
	if err != nil {
		return logMark{}, err
	}
	list, err := w.listNodes("")
	if err != nil {
		return logMark{}, err
	}
	head, err := resourceVersion(list.ResourceVersion)
	if err != nil {
		return logMark{}, err
	}
	return logMark{records: recs, head: head}, nil
}

// appended is what the log gained since w.before, the mark taken just
// before the last request.
func (w *world) appended() ([]auditEvent, logMark, error) {
	now, err := w.logMark()
	if err != nil {
		return nil, now, err
	}
	if len(now.records) < len(w.before.records) {
		return nil, now, fmt.Errorf("the log shrank from %s to %s", w.before, now)
	}
	return now.records[len(w.before.records):], now, nil
}

func (w *world) registerLogSteps(sc *godog.ScenarioContext) {
	sc.Step(`^nothing was added to the log$`, w.nothingAppended)
	sc.Step(`^the request added exactly (.+) to the log$`, w.appendedExactly)
	sc.Step(`^the log records these (\w+) changes for "([^"]+)":$`, w.conditionChangesAre)
	sc.Step(`^the timeline of "([^"]+)" shows, in order:$`, w.timelineShows)
	sc.Step(`^the timeline of "([^"]+)" as it was at (\S+) ends with (\w+)$`, w.timelineEndsAt)
	sc.Step(`^the timeline of "([^"]+)" read (\d+) entr(?:y|ies) a page gives every entry once$`, w.timelinePagesWhole)
	sc.Step(`^the resourceVersion of "([^"]+)" is the log position of its latest event$`, w.resourceVersionIsLatest)
	sc.Step(`^rebuilding the views from the log gives exactly the live views$`, w.replayEqualsLive)
}

// nothingAppended checks that the last request left the log as it was:
// the same records, and the same head.
func (w *world) nothingAppended() error {
	added, now, err := w.appended()
	if err != nil {
		return err
	}
	if len(added) > 0 || now.head != w.before.head {
		return fmt.Errorf("the log went from %s to %s; new: %s", w.before, now, eventTypes(added))
	}
	return nil
}

// appendedExactly checks the types of what the last request appended, in
// order: "NodeRegistered", "HeartbeatRecorded and NodeConditionChanged".
func (w *world) appendedExactly(list string) error {
	want := splitList(list)
	added, now, err := w.appended()
	if err != nil {
		return err
	}
	if got := eventTypes(added); !slices.Equal(got, want) {
		return fmt.Errorf("the request added %v to the log, want %v", got, want)
	}
	if len(added) > 0 && now.head != added[len(added)-1].Position {
		return fmt.Errorf("the node list says the log head is %d, the log ends at %d", now.head, added[len(added)-1].Position)
	}
	return nil
}

// conditionChangesAre checks every change of one condition type in a
// node's stream against the table: from, to and at, whether the log
// records it alone (NodeConditionChanged) or with the rest of a report's
// changes (NodeStatusChanged). A heartbeat that changes nothing must not
// appear.
func (w *world) conditionChangesAre(condition, node string, table *godog.Table) error {
	recs, err := w.logRecords(url.Values{"stream": {"node/" + node}, "type": {"NodeConditionChanged,NodeStatusChanged"}})
	if err != nil {
		return err
	}
	var got []string
	for _, r := range recs {
		ev, err := domain.UnmarshalEvent(r.Type, r.Payload)
		if err != nil {
			return fmt.Errorf("position %d: %w", r.Position, err)
		}
		domain.Holds(ev, func(c domain.NodeConditionChanged) bool {
			if string(c.Type) == condition {
				got = append(got, fmt.Sprintf("%s -> %s at %s", cmp.Or(string(c.From), "none"), c.Status, w.show(c.At)))
			}
			return false
		})
	}
	rows, err := tableRows(table, "from", "to", "at")
	if err != nil {
		return err
	}
	var want []string
	for _, r := range rows {
		want = append(want, fmt.Sprintf("%s -> %s at %s", r["from"], r["to"], r["at"]))
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("the log records these %s changes for %s:\n  %s\nwant:\n  %s",
			condition, node, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return nil
}

// timelineEntry is one line of a node's timeline.
type timelineEntry struct {
	Position int64     `json:"position"`
	At       time.Time `json:"at"`
	Kind     string    `json:"kind"`
	Type     string    `json:"type"`
	Reason   string    `json:"reason"`
	Message  string    `json:"message"`
}

// timelineShows checks that the node's timeline holds the table's entries
// in that order; other entries (condition changes, say) may come between.
// Columns: kind, and optionally type (Normal or Warning), reason and at.
func (w *world) timelineShows(node string, table *godog.Table) error {
	var tl struct {
		Items []timelineEntry `json:"items"`
	}
	if err := w.get(timelinePath(node), &tl); err != nil {
		return err
	}
	rows, err := tableRows(table, "kind")
	if err != nil {
		return err
	}
	var seen []string
	i := 0
	for _, e := range tl.Items {
		line := fmt.Sprintf("%s %s %s (%s) %s", w.show(e.At), e.Type, e.Kind, e.Reason, e.Message)
		seen = append(seen, line)
		if i < len(rows) && w.timelineMatches(e, rows[i]) {
			i++
		}
	}
	if i < len(rows) {
		return fmt.Errorf("the timeline of %s lacks %v (after the earlier rows); it reads:\n  %s",
			node, rows[i], strings.Join(seen, "\n  "))
	}
	return nil
}

// timelinePagesWhole reads the node's timeline a page of limit entries at
// a time, each page after the one before's continue, as an operator's
// script would, and checks the pages together are the timeline read
// whole: every entry once, in order, none skipped where a page ends
// inside one event's entries.
func (w *world) timelinePagesWhole(node string, limit int) error {
	type page struct {
		Items    []timelineEntry `json:"items"`
		Continue string          `json:"continue"`
	}
	var whole page
	if err := w.get(timelinePath(node), &whole); err != nil {
		return err
	}
	var paged []timelineEntry
	after := ""
	for range len(whole.Items) + 2 {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if after != "" {
			q.Set("after", after)
		}
		var p page
		if err := w.get(timelinePath(node)+"?"+q.Encode(), &p); err != nil {
			return err
		}
		if len(p.Items) > limit {
			return fmt.Errorf("a page of the timeline of %s asked for %d entries holds %d", node, limit, len(p.Items))
		}
		paged = append(paged, p.Items...)
		if p.Continue == "" {
			break
		}
		after = p.Continue
	}
	line := func(e timelineEntry) string {
		return fmt.Sprintf("%d %s %s %s (%s) %s", e.Position, w.show(e.At), e.Type, e.Kind, e.Reason, e.Message)
	}
	lines := func(es []timelineEntry) string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = line(e)
		}
		return strings.Join(out, "\n  ")
	}
	if lines(paged) != lines(whole.Items) {
		return fmt.Errorf("the timeline of %s read %d entries a page reads:\n  %s\nread whole:\n  %s", node, limit, lines(paged), lines(whole.Items))
	}
	return nil
}

// timelineEndsAt checks the last entry of the node's timeline as it was at
// a time of day (?asOf=).
func (w *world) timelineEndsAt(node, at, kind string) error {
	t, err := w.at(at)
	if err != nil {
		return err
	}
	var tl struct {
		Items []timelineEntry `json:"items"`
	}
	if err := w.get(timelinePath(node)+"?asOf="+url.QueryEscape(t.Format(time.RFC3339)), &tl); err != nil {
		return err
	}
	if len(tl.Items) == 0 || tl.Items[len(tl.Items)-1].Kind != kind {
		return fmt.Errorf("the timeline of %s as of %s is %+v, want it to end with %s", node, at, tl.Items, kind)
	}
	for _, e := range tl.Items {
		if e.At.After(t) {
			return fmt.Errorf("the timeline of %s as of %s holds %+v, from after then", node, at, e)
		}
	}
	return nil
}

func (w *world) timelineMatches(e timelineEntry, row map[string]string) bool {
	if e.Kind != row["kind"] {
		return false
	}
	if r, ok := row["reason"]; ok && e.Reason != r {
		return false
	}
	if typ, ok := row["type"]; ok && e.Type != typ {
		return false
	}
	if at, ok := row["at"]; ok && w.show(e.At) != at {
		return false
	}
	return true
}

// resourceVersionIsLatest checks that a node's resourceVersion is the log
// position of the last event in its stream.
func (w *world) resourceVersionIsLatest(node string) error {
	n, err := w.node(node)
	if err != nil {
		return err
	}
	rv, err := resourceVersion(n.ResourceVersion)
	if err != nil {
		return err
	}
	recs, err := w.logRecords(url.Values{"stream": {"node/" + node}})
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("the log holds nothing for %s", node)
	}
	if latest := recs[len(recs)-1]; rv != latest.Position {
		return fmt.Errorf("%s has resourceVersion %d; its latest event is %s at position %d", node, rv, latest.Type, latest.Position)
	}
	return nil
}

// replayEqualsLive rebuilds every view from the scenario's log, in a
// scratch copy of its database, and compares them with the live views
// byte for byte. It also checks that the rebuild replayed the whole log.
func (w *world) replayEqualsLive(ctx context.Context) error {
	mark, err := w.logMark()
	if err != nil {
		return err
	}
	var (
		diff  *projections.Difference
		stats projections.RebuildStats
	)
	if w.store != nil {
		scratch := filepath.Join(w.dir, "verify.db")
		diff, stats, err = projections.Verify(ctx, w.store, scratch, events.Config{PollInterval: 10 * time.Millisecond}, projections.RebuildOptions{})
	} else {
		diff, stats, err = projections.VerifyInPlace(ctx, w.log, projections.RebuildOptions{})
	}
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if diff != nil {
		return fmt.Errorf("the rebuilt views differ from the live ones: %s", diff)
	}
	if stats.Events != int64(len(mark.records)) || stats.Head != mark.head {
		return fmt.Errorf("the rebuild replayed %d events up to %d; the log holds %s", stats.Events, stats.Head, mark)
	}
	return nil
}

func eventTypes(recs []auditEvent) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, r.Type)
	}
	return out
}

package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
	"herd/projections/watch"
)

// sseEvent is one Server-Sent Event: its id, its name and its data.
type sseEvent struct{ id, event, data string }

// sse reads the next Server-Sent Event that has data.
func (l *lines) sse(t *testing.T) sseEvent {
	t.Helper()
	var ev sseEvent
	for {
		s, ok := l.next(t)
		if !ok {
			t.Fatal("the event stream ended")
		}
		switch {
		case s == "" && ev.data != "":
			return ev
		case s == "":
			ev = sseEvent{} // an id-only block
		case hasPrefix(s, "id: "):
			ev.id = strings.TrimPrefix(s, "id: ")
		case hasPrefix(s, "event: "):
			ev.event = strings.TrimPrefix(s, "event: ")
		case hasPrefix(s, "data: "):
			ev.data = strings.TrimPrefix(s, "data: ")
		default:
			t.Fatalf("not a Server-Sent Events line: %q", s)
		}
	}
}

// nodeEventsAfter is node@position for every node event after pos.
func (a *watchAPI) nodeEventsAfter(t *testing.T, pos int64) []string {
	t.Helper()
	recs, err := a.store.ReadAfter(t.Context(), a.store.DB(), pos, 0)
	if err != nil {
		t.Fatal(err)
	}
	// One write (a command's events on one node, the log marks those
	// after the first) is one watch event, at its last event's position.
	var out []string
	for i, r := range recs {
		if i+1 < len(recs) {
			next := recs[i+1]
			if next.Continues && next.Stream == r.Stream && next.Position == r.Position+1 {
				continue
			}
		}
		if name, ok := strings.CutPrefix(r.Stream, "node/"); ok {
			out = append(out, fmt.Sprintf("%s@%d", name, r.Position))
		}
	}
	return out
}

func TestEventStreamResumesFromTheLastEventID(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	a.do(t, "web-01", register("web-01", nil))
	from := a.head(t)
	stream := a.open(t, "/api/v1/nodes?watch=true&resourceVersion="+strconv.FormatInt(from, 10), map[string]string{"Accept": "text/event-stream"})
	if ct := stream.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	a.do(t, "web-01", healthy())
	a.do(t, "web-02", register("web-02", nil))
	want := a.nodeEventsAfter(t, from)

	var got []sseEvent
	var seen []string
	for range want {
		ev := stream.sse(t)
		var f frame
		if err := json.Unmarshal([]byte(ev.data), &f); err != nil {
			t.Fatalf("data is not a watch event: %q", ev.data)
		}
		obj := objectRV(t, f)
		if ev.event != f.Type || !strings.HasSuffix(obj, "@"+ev.id) {
			t.Errorf("event %q id %q carries %s %s", ev.event, ev.id, f.Type, obj)
		}
		got = append(got, ev)
		seen = append(seen, obj)
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}

	// A browser that lost the connection after the second event comes back
	// with its id, and gets the rest.
	again := a.open(t, "/api/v1/nodes?watch=true", map[string]string{"Accept": "text/event-stream", "Last-Event-ID": got[1].id})
	for _, w := range want[2:] {
		var f frame
		if err := json.Unmarshal([]byte(again.sse(t).data), &f); err != nil {
			t.Fatal(err)
		}
		if obj := objectRV(t, f); obj != w {
			t.Fatalf("after reconnecting: %s, want %s", obj, w)
		}
	}
}

func TestEventStreamMarksWhereTheInitialStateEnds(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	a.do(t, "web-01", register("web-01", nil))
	stream := a.open(t, "/api/v1/nodes?watch=true", map[string]string{"Accept": "text/event-stream"})
	// The initial state carries no ids; an id-only block follows it.
	for _, want := range []string{"event: ADDED", "data: ", "", "id: " + strconv.FormatInt(a.head(t), 10), ""} {
		line, _ := stream.next(t)
		if !hasPrefix(line, want) || (want == "" && line != "") {
			t.Fatalf("line %q, want it to start with %q", line, want)
		}
	}
}

func TestTableWatchSendsColumnsOnce(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	a.do(t, "web-01", register("web-01", nil))
	from := a.head(t)
	stream := a.open(t, "/api/v1/nodes?watch=true&resourceVersion="+strconv.FormatInt(from, 10),
		map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
	a.do(t, "web-01", healthy())
	want := a.nodeEventsAfter(t, from)
	for i, w := range want {
		f := stream.frame(t)
		var tbl metav1.Table
		if err := json.Unmarshal(f.Object, &tbl); err != nil {
			t.Fatal(err)
		}
		if tbl.Kind != "Table" || len(tbl.Rows) != 1 {
			t.Fatalf("frame %d: a %s with %d rows, want a Table with one", i, tbl.Kind, len(tbl.Rows))
		}
		if got := fmt.Sprintf("%s@%s", tbl.Rows[0].Cells[0], tbl.ResourceVersion); got != w {
			t.Errorf("frame %d: %s, want %s", i, got, w)
		}
		if hasColumns := len(tbl.ColumnDefinitions) > 0; hasColumns != (i == 0) {
			t.Errorf("frame %d has %d column definitions; only the first should have them", i, len(tbl.ColumnDefinitions))
		}
	}
}

// TestASlowClientIsCutOffWith410 watches without reading while a node
// changes far more often than the watch cache holds; when the client
// reads again, what the socket held is followed by an ERROR with 410
// Expired, and it can resume from the last resourceVersion it saw.
func TestASlowClientIsCutOffWith410(t *testing.T) {
	a := newWatchAPI(t, watch.Config{CacheSize: 16})
	// A large annotation makes every event large, so that the socket's
	// buffers fill and the server's writes block.
	big := map[string]string{"note": strings.Repeat("x", 100<<10)}
	a.do(t, "web-01", domain.RegisterNode{Registration: domain.Registration{Name: "web-01", Kind: domain.KindLinux, Annotations: big}})
	from := a.head(t)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, a.url+"/api/v1/nodes?watch=true&resourceVersion="+strconv.FormatInt(from, 10), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for range 400 { // 40 MiB of events, not read
		a.do(t, "web-01", healthy())
	}
	dec := json.NewDecoder(resp.Body)
	var last string
	for {
		var f frame
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("the watch ended without an error after %s: %v", last, err)
		}
		if f.Type == "ERROR" {
			var st metav1.Status
			if err := json.Unmarshal(f.Object, &st); err != nil {
				t.Fatal(err)
			}
			if st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || !strings.Contains(st.Message, "too slow") {
				t.Fatalf("the error: %d %s %q, want 410 Expired saying the watch was too slow", st.Code, st.Reason, st.Message)
			}
			break
		}
		last = strings.TrimPrefix(objectRV(t, f), "web-01@")
	}
	if err := dec.Decode(&frame{}); err == nil {
		t.Error("the watch went on after the error")
	}
	if last == "" {
		t.Fatal("no event before the cut-off")
	}
	// Resuming from the last event seen gives the rest.
	lastRV, _ := strconv.ParseInt(last, 10, 64)
	want := a.nodeEventsAfter(t, lastRV)
	resumed := a.open(t, "/api/v1/nodes?watch=true&resourceVersion="+last, nil)
	var got []string
	for range want {
		got = append(got, objectRV(t, resumed.frame(t)))
	}
	if !slices.Equal(got, want) {
		t.Errorf("resumed from %s: %v, want %v", last, got, want)
	}
}

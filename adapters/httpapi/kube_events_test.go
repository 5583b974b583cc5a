package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/domain"
	"herd/projections/watch"
)

// eventsFleet writes a small fleet's life to a real log: a node, a pod
// that runs and is deleted, one no node fits, one a drain evicts and one
// a NoExecute taint evicts.
func eventsFleet(t *testing.T) *watchAPI {
	t.Helper()
	a := newWatchAPI(t, watch.Config{})
	a.do(t, "web-01", register("web-01", nil))
	a.pod(t, "demo", "web", createPod("demo", "web"))
	a.pod(t, "demo", "web", domain.BindPod{NodeName: "web-01"})
	running := domain.PodStatus{Phase: domain.PodRunning, ContainerStatuses: []domain.ContainerStatus{
		{Name: "c", Image: "nginx", Ready: true, State: domain.ContainerState{Running: &domain.ContainerRunning{StartedAt: t0}}},
	}}
	a.pod(t, "demo", "web", domain.UpdatePodStatus{Status: running})
	a.pod(t, "demo", "stuck", createPod("demo", "stuck"))
	a.pod(t, "demo", "stuck", domain.MarkPodUnschedulable{Message: "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: db}."})
	for _, name := range []string{"drained", "tainted"} {
		a.pod(t, "other", name, createPod("other", name))
		a.pod(t, "other", name, domain.BindPod{NodeName: "web-01"})
	}
	a.pod(t, "other", "drained", domain.TargetPodDisruption{Reason: domain.ReasonEvictionByEvictionAPI, Message: "Eviction API: evicting"})
	a.pod(t, "other", "tainted", domain.TargetPodDisruption{Reason: domain.ReasonDeletionByTaintManager, Message: "Taint manager: deleting due to NoExecute taint"})
	a.pod(t, "demo", "web", domain.DeletePod{})
	a.pod(t, "demo", "web", domain.RecordTermination{Step: domain.StepShutdownRequested})
	a.pod(t, "demo", "web", domain.RecordTermination{Step: domain.StepHalted})
	a.pod(t, "demo", "web", domain.RecordTermination{Step: domain.StepStopped})
	return a
}

// seen is what an operator reads of an event.
type seen struct {
	Namespace, Object, Type, Reason, Message, From string
}

func decodeEventList(t *testing.T, body []byte) corev1.EventList {
	t.Helper()
	var l corev1.EventList
	if err := json.Unmarshal(body, &l); err != nil || l.Kind != "EventList" {
		t.Fatalf("not an EventList: %s", body)
	}
	return l
}

func seenOf(evs []corev1.Event) []seen {
	out := []seen{}
	for _, e := range evs {
		out = append(out, seen{e.Namespace, e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, e.Type, e.Reason, e.Message, e.Source.Component})
	}
	return out
}

// TestPodEventsAsKubernetesGivesThem: each pod event an operator knows
// from Kubernetes comes out of the log in the pod's namespace, in order.
func TestPodEventsAsKubernetesGivesThem(t *testing.T) {
	a := eventsFleet(t)
	got := seenOf(decodeEventList(t, mustGet(t, a, "/api/v1/namespaces/demo/events")).Items)
	want := []seen{
		{"demo", "Pod/web", "Normal", "Scheduled", "Successfully assigned demo/web to web-01", "default-scheduler"},
		{"demo", "Pod/web", "Normal", "Started", "Started container c", "herd-runtime"},
		{"demo", "Pod/stuck", "Warning", "FailedScheduling", "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: db}.", "default-scheduler"},
		{"demo", "Pod/web", "Normal", "Killing", "Stopping container c", "herd-runtime"},
		{"demo", "Pod/web", "Warning", "ExceededGracePeriod", "The pod did not stop within its grace period of 30 s and was stopped at once", "herd-runtime"},
		{"demo", "Pod/web", "Normal", "Stopped", "Pod demo/web no longer runs on node web-01", "herd-runtime"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("demo's events (-want +got):\n%s", d)
	}
	got = seenOf(decodeEventList(t, mustGet(t, a, "/api/v1/namespaces/other/events?fieldSelector=type%3DWarning,involvedObject.name%3Ddrained")).Items)
	want = []seen{{"other", "Pod/drained", "Warning", "Evicted", "Evicting pod other/drained from node web-01: Eviction API: evicting", "herd-eviction"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the drained pod's warnings (-want +got):\n%s", d)
	}
	got = seenOf(decodeEventList(t, mustGet(t, a, "/api/v1/events?fieldSelector=reason%3DTaintManagerEviction")).Items)
	want = []seen{{"other", "Pod/tainted", "Normal", "TaintManagerEviction", "Marking for deletion Pod other/tainted", "taint-eviction-controller"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("taint evictions (-want +got):\n%s", d)
	}
}

// TestEventNamesAndNamespaces: an event is named after its object and
// its log position, versioned by that position, got back by its name, in
// its pod's namespace, and a node's in default.
func TestEventNamesAndNamespaces(t *testing.T) {
	a := eventsFleet(t)
	all := decodeEventList(t, mustGet(t, a, "/api/v1/events")).Items
	if len(all) == 0 {
		t.Fatal("no events")
	}
	var sawNode bool
	for _, e := range all {
		rv, err := strconv.ParseInt(e.ResourceVersion, 10, 64)
		if err != nil {
			t.Fatalf("%s: resourceVersion %q", e.Name, e.ResourceVersion)
		}
		if want := e.InvolvedObject.Name + "." + strconv.FormatInt(rv, 16); e.Name != want && e.Name[:len(want)] != want {
			t.Errorf("event named %q, want %q", e.Name, want)
		}
		switch e.InvolvedObject.Kind {
		case "Node":
			sawNode = true
			if e.Namespace != "default" || e.InvolvedObject.Namespace != "" || e.InvolvedObject.UID != "uid-web-01" {
				t.Errorf("node event %s in %q about %+v", e.Name, e.Namespace, e.InvolvedObject)
			}
		case "Pod":
			if e.Namespace != e.InvolvedObject.Namespace || string(e.InvolvedObject.UID) != "uid-"+e.InvolvedObject.Name {
				t.Errorf("pod event %s in %q about %+v", e.Name, e.Namespace, e.InvolvedObject)
			}
		}
		if e.Count != 1 || e.FirstTimestamp.IsZero() || e.EventTime.IsZero() || e.ReportingController == "" {
			t.Errorf("event %s: count %d first %v eventTime %v controller %q", e.Name, e.Count, e.FirstTimestamp, e.EventTime, e.ReportingController)
		}
		var got corev1.Event
		if err := json.Unmarshal(mustGet(t, a, "/api/v1/namespaces/"+e.Namespace+"/events/"+e.Name), &got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(e, got); d != "" {
			t.Errorf("get %s (-listed +got):\n%s", e.Name, d)
		}
	}
	if !sawNode {
		t.Error("no node event")
	}
	for _, path := range []string{"/api/v1/namespaces/other/events/" + all[0].Name, "/api/v1/namespaces/demo/events/web.ffffff", "/api/v1/namespaces/demo/events/nonsense"} {
		if code, body := a.get(t, path, ""); code != http.StatusNotFound {
			t.Errorf("GET %s: %d %s, want 404", path, code, body)
		}
	}
}

// TestEventsPageConsistently: limit and continue page through the events
// as of the first page, whatever is recorded meanwhile.
func TestEventsPageConsistently(t *testing.T) {
	a := eventsFleet(t)
	all := decodeEventList(t, mustGet(t, a, "/api/v1/events")).Items
	var paged []corev1.Event
	path := "/api/v1/events?limit=2"
	for pages := 0; ; pages++ {
		l := decodeEventList(t, mustGet(t, a, path))
		if len(l.Items) > 2 {
			t.Fatalf("a page of %d events with limit=2", len(l.Items))
		}
		paged = append(paged, l.Items...)
		if pages == 0 {
			// Something happens between the pages.
			a.pod(t, "demo", "late", createPod("demo", "late"))
			a.pod(t, "demo", "late", domain.BindPod{NodeName: "web-01"})
		}
		if l.Continue == "" {
			break
		}
		path = "/api/v1/events?limit=2&continue=" + url.QueryEscape(l.Continue)
	}
	if d := cmp.Diff(all, paged); d != "" {
		t.Errorf("paged events differ from the list (-list +paged):\n%s", d)
	}
	if code, body := a.get(t, "/api/v1/events?limit=2&continue=bm9wZQ", ""); code != http.StatusBadRequest {
		t.Errorf("a bad continue: %d %s", code, body)
	}
}

// TestEventFieldSelectors: the fields kubectl selects events by narrow
// the list; a field events do not have is refused as kube-apiserver
// refuses it; a label selector matches nothing but everything.
func TestEventFieldSelectors(t *testing.T) {
	a := eventsFleet(t)
	count := func(query string) int {
		t.Helper()
		return len(decodeEventList(t, mustGet(t, a, "/api/v1/events?"+query)).Items)
	}
	all := count("")
	for _, tc := range []struct {
		name, query string
		want        int
	}{
		{"one pod", "fieldSelector=involvedObject.name%3Dweb,involvedObject.namespace%3Ddemo,involvedObject.kind%3DPod,involvedObject.uid%3Duid-web", 5},
		{"one pod's namespace mismatch", "fieldSelector=involvedObject.name%3Dweb,involvedObject.namespace%3Dother", 0},
		{"nodes", "fieldSelector=involvedObject.kind%3DNode", 1},
		{"node by name", "fieldSelector=involvedObject.name%3Dweb-01,involvedObject.namespace%3D", 1},
		{"warnings", "fieldSelector=type%3DWarning", 3},
		{"reason", "fieldSelector=reason%3DScheduled", 3},
		{"namespace", "fieldSelector=metadata.namespace%3Dother", 4},
		{"not a reason", "fieldSelector=reason!%3DScheduled", all - 3},
		{"a label", "labelSelector=app%3Dweb", 0},
		{"no label", "labelSelector=", all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := count(tc.query); got != tc.want {
				t.Errorf("%s: %d events, want %d", tc.query, got, tc.want)
			}
		})
	}
	if code, body := a.get(t, "/api/v1/events?fieldSelector=spec.nodeName%3Dx", ""); code != http.StatusBadRequest {
		t.Errorf("an unknown field: %d %s, want 400", code, body)
	}
	code, body := a.get(t, "/apis/events.k8s.io/v1/namespaces/demo/events?fieldSelector=regarding.name%3Dstuck", "")
	var l eventsv1.EventList
	if err := json.Unmarshal(body, &l); code != http.StatusOK || err != nil || len(l.Items) != 1 || l.Items[0].Reason != "FailedScheduling" || l.Items[0].Regarding.Name != "stuck" {
		t.Errorf("events.k8s.io/v1 by regarding.name: %d %s", code, body)
	}
}

// TestEventsInProtobufAndAsTable: client-go's protobuf and kubectl's
// Table both come out of the same list.
func TestEventsInProtobufAndAsTable(t *testing.T) {
	a := eventsFleet(t)
	code, body := a.get(t, "/api/v1/namespaces/demo/events", protobufType)
	if code != http.StatusOK {
		t.Fatalf("protobuf list: %d %s", code, body)
	}
	obj, _, err := codecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := obj.(*corev1.EventList); !ok || len(l.Items) != 6 {
		t.Errorf("protobuf list: %T %v", obj, obj)
	}
	code, body = a.get(t, "/api/v1/namespaces/demo/events", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var tbl struct {
		Columns []struct{ Name string } `json:"columnDefinitions"`
		Rows    []struct{ Cells []any } `json:"rows"`
	}
	if err := json.Unmarshal(body, &tbl); code != http.StatusOK || err != nil || len(tbl.Rows) != 6 {
		t.Fatalf("table: %d %s", code, body)
	}
	if got := tbl.Rows[0].Cells[1:4]; !cmp.Equal(got, []any{"Normal", "Scheduled", "pod/web"}) {
		t.Errorf("first row %v", tbl.Rows[0].Cells)
	}
	if tbl.Columns[0].Name != "Last Seen" || tbl.Columns[6].Name != "Message" {
		t.Errorf("columns %v", tbl.Columns)
	}
}

// TestEventsWatch: a watch from a resourceVersion streams the events
// recorded after it as ADDED, and one from before the compaction point
// gets 410 Expired.
func TestEventsWatch(t *testing.T) {
	a := eventsFleet(t)
	rv := a.head(t)
	w := a.open(t, "/api/v1/namespaces/demo/events?watch=true&resourceVersion="+strconv.FormatInt(rv, 10), nil)
	a.pod(t, "other", "elsewhere", createPod("other", "elsewhere"))
	a.pod(t, "other", "elsewhere", domain.BindPod{NodeName: "web-01"})
	a.pod(t, "demo", "new", createPod("demo", "new"))
	a.pod(t, "demo", "new", domain.BindPod{NodeName: "web-01"})
	f := w.frame(t)
	var e corev1.Event
	if err := json.Unmarshal(f.Object, &e); err != nil {
		t.Fatal(err)
	}
	if f.Type != "ADDED" || e.Reason != "Scheduled" || e.InvolvedObject.Name != "new" || e.Namespace != "demo" {
		t.Errorf("watched %s %s %s/%s", f.Type, e.Reason, e.Namespace, e.InvolvedObject.Name)
	}

	// A watch whose time is up ends with a bookmark where it got to.
	w = a.open(t, "/api/v1/events?watch=true&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion="+strconv.FormatInt(rv, 10), nil)
	a.clk.Step(5 * time.Second)
	for {
		f := w.frame(t)
		if f.Type == "BOOKMARK" {
			if got, want := objectRV(t, f), "@"+strconv.FormatInt(a.head(t), 10); got != want {
				t.Errorf("last bookmark %s, want %s", got, want)
			}
			break
		}
	}
	if l, ok := w.next(t); ok {
		t.Errorf("the watch goes on after its time: %s", l)
	}

	a.store.RaiseCompactionPoint(rv)
	w = a.open(t, "/api/v1/events?watch=true&resourceVersion=1", nil)
	f = w.frame(t)
	var st struct{ Code int }
	if err := json.Unmarshal(f.Object, &st); err != nil || f.Type != "ERROR" || st.Code != http.StatusGone {
		t.Errorf("a watch from before the compaction point: %s %s", f.Type, f.Object)
	}
}

// TestParseEventName: names herd gives parse back; others do not.
func TestParseEventName(t *testing.T) {
	d := derivedEvent{pos: 0x1a2b, seq: 2, object: corev1.ObjectReference{Name: "web.v2"}}
	obj, pos, seq, ok := parseEventName(d.name())
	if !ok || obj != "web.v2" || pos != 0x1a2b || seq != 2 {
		t.Errorf("parse %q: %q %x %d %v", d.name(), obj, pos, seq, ok)
	}
	for _, bad := range []string{"web", ".1a", "web.zz", "web.1a-0", "web.1a-x", "web.01a"} {
		if _, _, _, ok := parseEventName(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestEventsWatchInProtobufAndCBOR: client-go's binary watches of Events
// carry the events so far, the end of them as a bookmark, and new ones,
// in both groups.
func TestEventsWatchInProtobufAndCBOR(t *testing.T) {
	a := eventsFleet(t)
	for _, tc := range []struct{ path, accept, mt string }{
		{"/api/v1/namespaces/demo/events", "application/vnd.kubernetes.protobuf, application/json", runtime.ContentTypeProtobuf},
		{"/apis/events.k8s.io/v1/namespaces/demo/events", "application/cbor", runtime.ContentTypeCBOR},
	} {
		t.Run(tc.mt, func(t *testing.T) {
			w := openBinaryWatch(t, a.url, tc.path+"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", tc.accept, tc.mt)
			reason := func(obj runtime.Object) string {
				switch e := obj.(type) {
				case *corev1.Event:
					return e.Reason + " " + e.InvolvedObject.Name
				case *eventsv1.Event:
					return e.Reason + " " + e.Regarding.Name
				}
				t.Fatalf("not an Event: %T", obj)
				return ""
			}
			if typ, obj := w.next(t); typ != "ADDED" || reason(obj) != "Scheduled web" {
				t.Errorf("first event %s %s", typ, reason(obj))
			}
			for {
				typ, obj := w.next(t)
				if typ == "BOOKMARK" {
					acc, _ := meta.Accessor(obj)
					if acc.GetAnnotations()["k8s.io/initial-events-end"] != "true" {
						t.Errorf("bookmark %v without the end of the initial events", acc.GetAnnotations())
					}
					break
				}
			}
			name := "new-" + strings.ToLower(tc.mt[len(tc.mt)-4:])
			a.pod(t, "demo", name, createPod("demo", name))
			a.pod(t, "demo", name, domain.BindPod{NodeName: "web-01"})
			if typ, obj := w.next(t); typ != "ADDED" || reason(obj) != "Scheduled "+name {
				t.Errorf("new event %s %s", typ, reason(obj))
			}
		})
	}
}

// BenchmarkEventList lists the events of 500 pods that were scheduled,
// started and deleted, the way kubectl get events -A asks (limit=500),
// and as kubectl describe pod asks for one pod's.
func BenchmarkEventList(b *testing.B) {
	a := newWatchAPI(b, watch.Config{})
	a.do(b, "web-01", register("web-01", nil))
	running := domain.PodStatus{Phase: domain.PodRunning, ContainerStatuses: []domain.ContainerStatus{
		{Name: "c", State: domain.ContainerState{Running: &domain.ContainerRunning{StartedAt: t0}}},
	}}
	for i := range 500 {
		name := "p" + strconv.Itoa(i)
		for _, cmd := range []domain.PodCommand{createPod("demo", name), domain.BindPod{NodeName: "web-01"}, domain.UpdatePodStatus{Status: running}, domain.DeletePod{}} {
			if _, err := a.w.PodCommands().Execute(b.Context(), domain.Key{Namespace: "demo", Name: name}, cmd); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, bc := range []struct{ name, path string }{
		{"all", "/api/v1/events?limit=500"},
		{"one pod", "/api/v1/namespaces/demo/events?fieldSelector=involvedObject.name%3Dp250,involvedObject.namespace%3Ddemo,involvedObject.kind%3DPod"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				req, err := http.NewRequestWithContext(b.Context(), http.MethodGet, a.url+bc.path, nil)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}

// TestEventsReadInSmallBatches: reading the log a few records at a time
// gives the same events, in the same order, listed whole or page by page.
func TestEventsReadInSmallBatches(t *testing.T) {
	a := eventsFleet(t)
	all := decodeEventList(t, mustGet(t, a, "/api/v1/events")).Items
	defer func(n int) { eventBatch = n }(eventBatch)
	for _, n := range []int{1, 2, 3} {
		eventBatch = n
		if d := cmp.Diff(all, decodeEventList(t, mustGet(t, a, "/api/v1/events")).Items); d != "" {
			t.Errorf("batches of %d (-whole +batched):\n%s", n, d)
		}
		var paged []corev1.Event
		for path := "/api/v1/events?limit=3"; ; {
			l := decodeEventList(t, mustGet(t, a, path))
			paged = append(paged, l.Items...)
			if l.Continue == "" {
				break
			}
			path = "/api/v1/events?limit=3&continue=" + url.QueryEscape(l.Continue)
		}
		if d := cmp.Diff(all, paged); d != "" {
			t.Errorf("batches of %d, pages of 3 (-whole +paged):\n%s", n, d)
		}
	}
}

// TestWhoReadsEvents: viewers and admins read events in both groups; a
// node reads none, and nobody writes them.
func TestWhoReadsEvents(t *testing.T) {
	_, base := newAuthAPI(t)
	for _, tc := range []struct {
		name string
		rq   req
		code int
	}{
		{"admin lists", req{method: "GET", path: "/api/v1/events", token: "admin-token"}, 200},
		{"viewer lists", req{method: "GET", path: "/api/v1/namespaces/default/events", token: "viewer-token"}, 200},
		{"viewer lists events.k8s.io", req{method: "GET", path: "/apis/events.k8s.io/v1/events", token: "viewer-token"}, 200},
		{"node lists none", req{method: "GET", path: "/api/v1/events", token: "pico1-token"}, 403},
		{"node lists no events.k8s.io", req{method: "GET", path: "/apis/events.k8s.io/v1/events", token: "pico1-token"}, 403},
		{"no role lists none", req{method: "GET", path: "/api/v1/events", token: "norole-token"}, 403},
		{"viewer writes none", req{method: "POST", path: "/api/v1/namespaces/default/events", token: "viewer-token", body: `{}`}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if a := send(t, nil, base, tc.rq); a.code != tc.code {
				t.Errorf("%s %s: %d %s, want %d", tc.rq.method, tc.rq.path, a.code, a.body, tc.code)
			}
		})
	}
}

// TestNodeEventTypes: a node's event has the type its timeline gave it:
// a drain is a Warning, since the node's pods are stopped.
func TestNodeEventTypes(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	a.do(t, "web-01", register("web-01", nil))
	a.do(t, "web-01", domain.DrainNode{})
	got := seenOf(decodeEventList(t, mustGet(t, a, "/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DNode")).Items)
	var types []string
	for _, s := range got {
		types = append(types, s.Reason+" "+s.Type)
	}
	if want := []string{"Registered Normal", "Draining Warning"}; !cmp.Equal(want, types) {
		t.Errorf("node events %v, want %v", types, want)
	}
}

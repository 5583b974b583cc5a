package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/httpapi"
)

// TestWebViewPlaysANodeAndThePodsInPlace: a node's page and the pods
// page, stepped forward through history event by event, show each
// moment's state — pb-1's taint only once it was tainted, late-0 only
// once it was created — and follow in place: marks set on the page's
// sections and rows before the steps are still there after them, which
// a page built again at each step would have lost; the pods of each
// moment are read in the page's worker.
func TestWebViewPlaysANodeAndThePodsInPlace(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{Args: []string{"--reconcilers="}})
	registerAgent(t, srv.URL, "pb-1")
	var n corev1.Node
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/pb-1", nil, &n)
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "maintenance", Value: "true", Effect: corev1.TaintEffectNoSchedule})
	mustCall(t, http.StatusOK, http.MethodPut, srv.URL+"/api/v1/nodes/pb-1", n, nil)
	createPods(t, srv.URL, "early", 1)
	createPods(t, srv.URL, "late", 1)
	mustCall(t, http.StatusCreated, http.MethodPost, srv.URL+"/api/v1/namespaces/default/pods/early-0/binding",
		corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "early-0"}, Target: corev1.ObjectReference{Kind: "Node", Name: "pb-1"}}, nil)

	// The moments the step buttons stop at, and when each thing happened.
	var list httpapi.AuditEventList
	q := url.Values{"excludeType": {"HeartbeatRecorded,LeaseRenewed"}, "limit": {"1000"}}
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?"+q.Encode(), nil, &list)
	first := map[string]time.Time{} // stream -> its first event's moment
	var registered, tainted, bound time.Time
	for _, e := range list.Items {
		if _, ok := first[e.Stream]; !ok {
			first[e.Stream] = e.RecordedAt
			continue
		}
		if e.Stream == "node/pb-1" && tainted.IsZero() && e.RecordedAt.After(first[e.Stream]) {
			tainted = e.RecordedAt
		}
		if e.Stream == "pod/default/early-0" && bound.IsZero() && e.RecordedAt.After(first[e.Stream]) {
			bound = e.RecordedAt
		}
	}
	registered = first["node/pb-1"]
	early, late := first["pod/default/early-0"], first["pod/default/late-0"]
	if registered.IsZero() || tainted.IsZero() || early.IsZero() || late.IsZero() || !late.After(early) || !bound.After(late) {
		t.Fatalf("the log's moments: registered %s, tainted %s, early-0 %s, late-0 %s, early-0 bound %s: want each, in that order (events %+v)", registered, tainted, early, late, bound, list.Items)
	}
	shownAt := func() time.Time {
		s := read(t, tab, "the moment shown", evaluate[string](`new URLSearchParams(location.hash.split('?')[1] || '').get('at') || ''`))
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("the page shows %q: want a moment of the past", s)
		}
		return at
	}
	// stepUntil steps forward until the moment shown is past want,
	// checking after each step (once the page says it has followed it,
	// with the mark named by moved) that shows holds exactly from want on.
	stepUntil := func(what, moved string, want time.Time, shows string) {
		for i := 0; ; i++ {
			if i == 20 {
				t.Fatalf("%s: 20 steps and the moment shown is still before %s", what, want.Format(time.RFC3339Nano))
			}
			before := shownAt()
			browse(t, tab, "step forward", clickRedrawn("#step-forward"),
				waitFor(fmt.Sprintf(`(new URLSearchParams(location.hash.split('?')[1] || '').get('at') || '') !== %q`, before.Format(time.RFC3339Nano))))
			at := shownAt()
			// The mark names the moment in the page's own words (toISOString).
			browse(t, tab, "the page follows "+at.UTC().Format(time.RFC3339Nano), waitFor(fmt.Sprintf(
				`performance.getEntriesByName(%q).some((m) => m.detail.at === new URLSearchParams(location.hash.split('?')[1]).get('at'))`, moved)))
			got := read(t, tab, what, evaluate[bool](shows))
			if reached := !at.Before(want); got != reached {
				t.Fatalf("%s at %s: the page says %v, want %v (it happened at %s)", what, at.Format(time.RFC3339Nano), got, reached, want.Format(time.RFC3339Nano))
			}
			if got {
				return
			}
		}
	}

	// A node's page, from its registration to its taint.
	at := url.Values{"at": {registered.Format(time.RFC3339Nano)}}
	browse(t, tab, "pb-1's page when it registered", chromedp.Navigate(srv.URL+"/ui/#/nodes/pb-1?"+at.Encode()),
		chromedp.WaitVisible(`#node-state`), chromedp.WaitVisible(`#agent-state`))
	browse(t, tab, "mark the node's page", script(`(() => {
		document.getElementById('node-conditions').dataset.probe = 'kept';
		document.getElementById('agent-state').dataset.probe = 'kept';
		document.getElementById('node-timeline').dataset.probe = 'kept';
	})()`))
	stepUntil("pb-1's maintenance taint shown", "herd:node-moved", tainted,
		`(document.getElementById('taints')?.textContent || '').includes('maintenance=true:NoSchedule')`)
	screenshot(t, tab, "playback-node-in-place")
	if kept := read(t, tab, "the node page's marks", evaluate[string](`[
		document.getElementById('node-conditions')?.dataset.probe,
		document.getElementById('agent-state')?.dataset.probe,
		document.getElementById('node-timeline')?.dataset.probe,
	].join()`)); kept != "kept,kept,kept" {
		t.Errorf("pb-1's page after the steps has marks %q, want kept,kept,kept: the page was built again instead of following in place", kept)
	}

	// The pods page, from early-0's creation to late-0's.
	at = url.Values{"at": {early.Format(time.RFC3339Nano)}}
	browse(t, tab, "the pods when early-0 was created", chromedp.Navigate(srv.URL+"/ui/#/pods?"+at.Encode()),
		chromedp.WaitVisible(`tr.pod[data-pod="default/early-0"]`))
	browse(t, tab, "mark the pods page", script(`(() => {
		document.getElementById('pods').dataset.probe = 'kept';
		document.querySelector('tr.pod[data-pod="default/early-0"]').dataset.probe = 'kept';
	})()`))
	stepUntil("late-0 listed", "herd:moved", late, `document.querySelector('tr.pod[data-pod="default/late-0"]') !== null`)
	screenshot(t, tab, "playback-pods-in-place")
	if kept := read(t, tab, "the pods page's marks", evaluate[string](`[
		document.getElementById('pods')?.dataset.probe,
		document.querySelector('tr.pod[data-pod="default/early-0"]')?.dataset.probe,
	].join()`)); kept != "kept,kept" {
		t.Errorf("the pods page after the steps has marks %q, want kept,kept: the page was built again instead of following in place", kept)
	}
	// The pods of each moment were read off the page's main thread.
	if via := read(t, tab, "where the pods were read", evaluate[string](`[...new Set(performance.getEntriesByName('herd:moved').map((m) => m.detail.via))].join()`)); via != "worker" {
		t.Errorf("the pods page's lists of the past were read in %q, want the worker alone", via)
	}
	if shown := read(t, tab, "the pods counted", evaluate[string](`document.getElementById('pod-shown').textContent`)); !strings.HasPrefix(shown, "2 of 2") {
		t.Errorf("the pods page counts %q once late-0 was created, want 2 of 2", shown)
	}

	// A pod's page, from early-0's creation to its binding.
	at = url.Values{"at": {early.Format(time.RFC3339Nano)}}
	browse(t, tab, "early-0's page when it was created", chromedp.Navigate(srv.URL+"/ui/#/pods/default/early-0?"+at.Encode()),
		chromedp.WaitVisible(`#pod-phase`))
	if head := read(t, tab, "early-0's page at its creation", evaluate[string](`document.getElementById('pod-head').textContent`)); !strings.Contains(head, "not bound to a node") {
		t.Errorf("early-0's page at its creation says %q, want it not bound", head)
	}
	browse(t, tab, "mark the pod's page", script(`(() => {
		for (const id of ['pod-head', 'pod-why', 'pod-origin', 'pod-conditions']) document.getElementById(id).dataset.probe = 'kept';
	})()`))
	stepUntil("early-0 bound to pb-1", "herd:pod-moved", bound, `(document.getElementById('pod-head')?.textContent || '').includes('on pb-1')`)
	screenshot(t, tab, "playback-pod-in-place")
	if kept := read(t, tab, "the pod page's marks", evaluate[string](`['pod-head', 'pod-why', 'pod-origin', 'pod-conditions'].map((id) => document.getElementById(id)?.dataset.probe).join()`)); kept != "kept,kept,kept,kept" {
		t.Errorf("early-0's page after the steps has marks %q, want kept four times: the page was built again instead of following in place", kept)
	}
	if origin := read(t, tab, "how early-0 came to be", evaluate[string](`document.getElementById('origin').textContent`)); !strings.Contains(origin, "PodScheduled") {
		t.Errorf("early-0's page once it was bound tells how it came to be as %q, want its binding (PodScheduled)", origin)
	}
	if same := read(t, tab, "the link back to the pods", evaluate[bool](`new URLSearchParams(document.querySelector('.crumbs a').getAttribute('href').split('?')[1]).get('at') ===
		new URLSearchParams(location.hash.split('?')[1]).get('at')`)); !same {
		t.Error("the link back to the pods is not at the moment the pod's page shows")
	}
}

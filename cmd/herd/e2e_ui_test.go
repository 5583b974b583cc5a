package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/httpapi"
)

// TestWebViewShowsTheFleetLiveAndAsItWas: in a real browser, the
// overview lists the nodes; a node that falls silent turns NotReady on
// the page without a reload; the time control moved back to when it
// reported shows it Ready again, marked as the past; back to live it is
// NotReady, and its page says why. Each page is saved as a screenshot.
func TestWebViewShowsTheFleetLiveAndAsItWas(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{Args: []string{
		"--node-monitor-period", "100ms", "--node-monitor-grace-period", "2s", "--node-startup-grace-period", "2s",
	}})
	nodes := []string{"web-01", "web-02", "web-03"}
	for _, n := range nodes {
		registerAgent(t, srv.URL, n)
		heartbeat(t, srv.URL, n, healthyMetrics())
	}
	// Three nodes, so that one silent node is an outage, not a fleet-wide
	// disruption.
	beats := keepBeating(t, srv.URL, "", 250*time.Millisecond, nodes...)
	createPods(t, srv.URL, "app", 3)

	// A browser asking for / is sent to the page.
	browse(t, tab, "open herd's address", chromedp.Navigate(srv.URL+"/"))
	at := read(t, tab, "read the page's address", chromedp.Location())
	if !strings.HasSuffix(at, "/ui/") {
		t.Fatalf("a browser at / landed on %s, want /ui/", at)
	}
	for _, n := range nodes {
		browse(t, tab, n+" listed Ready", waitFor(tileReady(n, "Ready")))
	}
	// The count is read in the page, not as a node fetched and then read:
	// a live update may draw the header anew in between.
	browse(t, tab, "the overview counts 3 nodes", waitFor(`document.querySelector('#total')?.textContent === '3'`))
	screenshot(t, tab, "overview")

	// A mark in the page's own memory: a reload would lose it.
	browse(t, tab, "mark the page", script(`window.herdTestMark = 'kept'`))
	readyAt := time.Now()
	// Let web-01 report a little past readyAt, then fall silent.
	eventually(t, 10*time.Second, func() error {
		if beats.beats.Load() < 12+3 {
			return fmt.Errorf("%d heartbeats so far", beats.beats.Load())
		}
		return nil
	})
	beats.quiet.Store("web-01", true)
	browse(t, tab, "web-01 turns NotReady without a reload", waitFor(tileReady("web-01", "NotReady")))
	mark := read(t, tab, "the page's mark", evaluate[string](`window.herdTestMark || ''`))
	if mark != "kept" {
		t.Fatal("the page was reloaded to show web-01 NotReady")
	}
	browse(t, tab, "web-02 stays Ready", waitFor(tileReady("web-02", "Ready")))
	screenshot(t, tab, "overview-silent-node")

	// The time control, dragged back to when web-01 still reported.
	browse(t, tab, "move the time control back", script(fmt.Sprintf(`(() => {
		const r = document.getElementById('asof-range'), oldest = +r.dataset.oldest;
		r.value = String(Math.round((%d - oldest) / (Date.now() - oldest) * 1000));
		r.dispatchEvent(new Event('input'));
		r.dispatchEvent(new Event('change'));
	})()`, readyAt.UnixMilli())))
	browse(t, tab, "the past is marked", chromedp.WaitVisible("#past-marker"))
	browse(t, tab, "web-01 Ready in the past", waitFor(tileReady("web-01", "Ready")))
	screenshot(t, tab, "overview-past")

	browse(t, tab, "back to live", clickRedrawn("#asof-now"), chromedp.WaitNotVisible("#past-marker"))
	browse(t, tab, "web-01 NotReady again", waitFor(tileReady("web-01", "NotReady")))

	// Its page says why, with the chain of events behind it.
	browse(t, tab, "open web-01's page", clickRedrawn(`.tile[data-node="web-01"]`), chromedp.WaitVisible("#why"))
	why := read(t, tab, "read why", chromedp.Text("#why"))
	if !strings.Contains(why, "Ready is Unknown") {
		t.Errorf("web-01's why says %q, want Ready is Unknown", why)
	}
	browse(t, tab, "its charts and timeline", chromedp.WaitVisible(`#node-charts svg.plot`), chromedp.WaitVisible(`#timeline li`))
	screenshot(t, tab, "node")

	// The other pages, each with what it is for.
	browse(t, tab, "the pods", chromedp.Navigate(srv.URL+"/ui/#/pods"), chromedp.WaitVisible(`tr.pod[data-pod="default/app-0"]`))
	// The pods of the silent node are not ready; the others are.
	browse(t, tab, "the pods' readiness", waitFor(`[...document.querySelectorAll('tr.pod')].length === 3 &&
		[...document.querySelectorAll('tr.pod')].every((r) => r.dataset.ready === (r.dataset.node === 'web-01' ? 'not ready' : 'ready'))`))
	readiness := read(t, tab, "the pods' readiness", evaluate[[]string](`[...document.querySelectorAll('tr.pod')].map((r) => r.dataset.node + ' ' + r.dataset.ready)`))
	if !slices.Contains(readiness, "web-01 not ready") {
		t.Errorf("the pods page reads %v, want a pod of web-01 not ready", readiness)
	}
	screenshot(t, tab, "pods")

	// The pod's own page says why it is not ready, and how it came to be.
	browse(t, tab, "open the page of web-01's pod", clickRedrawn(`tr.pod[data-node="web-01"] a.pod-link`),
		chromedp.WaitVisible(`#why .why-item[data-what="not ready"]`), chromedp.WaitVisible(`#origin .why-item[data-what="created"]`))
	notReady := read(t, tab, "why the pod is not ready", chromedp.Text(`#why .why-item[data-what="not ready"]`))
	for _, want := range []string{"PodMarkedNotReady", "system:herd:podready", "its node web-01 is not Ready", "HeartbeatMissed"} {
		if !strings.Contains(notReady, want) {
			t.Errorf("the pod's page explains not ready as %q, want %q in it", notReady, want)
		}
	}
	if bound := read(t, tab, "how the pod came to be", chromedp.Text(`#origin`)); !strings.Contains(bound, "bound to web-01") || !strings.Contains(bound, "PodScheduled") {
		t.Errorf("the pod's page says it came to be %q, want its binding to web-01", bound)
	}
	screenshot(t, tab, "pod")
	// The same page as it was while web-01 still reported: ready, nothing
	// wrong.
	podPath := read(t, tab, "the pod page's address", evaluate[string](`location.hash.split('?')[0]`))
	browse(t, tab, "the pod's page in the past", chromedp.Navigate(srv.URL+"/ui/"+podPath+"?at="+url.QueryEscape(readyAt.UTC().Format(time.RFC3339Nano))),
		chromedp.WaitVisible("#past-marker"), waitFor(`document.querySelector('#pod-ready')?.dataset.ready === 'ready'`))
	if why := read(t, tab, "why, in the past", chromedp.Text("#why")); !strings.Contains(why, "Nothing is wrong") {
		t.Errorf("the pod's page as it was while its node reported says %q, want nothing wrong", why)
	}
	browse(t, tab, "the audit log", chromedp.Navigate(srv.URL+"/ui/#/audit?stream=node/web-01"), chromedp.WaitVisible(`tr.audit-event[data-type="NodeRegistered"]`))
	screenshot(t, tab, "audit")
	// Events one write appended together are marked as one write: the
	// page marks exactly the events the log says continue a write.
	var logged httpapi.AuditEventList
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?"+url.Values{
		"stream": {"node/web-01"}, "excludeType": {"HeartbeatRecorded,LeaseRenewed"}, "limit": {"1000"},
	}.Encode(), nil, &logged)
	var continuing []int64
	for _, e := range logged.Items {
		if e.ContinuesWrite {
			continuing = append(continuing, e.Position)
		}
	}
	if len(continuing) == 0 {
		t.Fatalf("no event of web-01 continues a write: %+v", logged.Items)
	}
	marked := read(t, tab, "the events marked as one write", evaluate[[]int64](`[...document.querySelectorAll('tr.audit-event.continues-write')].map((r) => +r.dataset.position).sort((a, b) => a - b)`))
	if !slices.Equal(marked, continuing) {
		t.Errorf("the audit page marks %v as continuing a write, the log says %v", marked, continuing)
	}
	from := url.Values{"from": {readyAt.UTC().Format(time.RFC3339Nano)}}
	browse(t, tab, "the fleet then and now", chromedp.Navigate(srv.URL+"/ui/#/diff?"+from.Encode()), chromedp.WaitVisible(`tr.changed[data-diff="web-01"]`))
	screenshot(t, tab, "diff")

	// The live pod page follows the pod: it reads the pod again when the
	// pod changes, not on a timer. While the pod stays as it is, the page
	// asks nothing; when web-01 reports again, the pod turns ready on the
	// page without a reload.
	browse(t, tab, "the pod's page, live", chromedp.Navigate(srv.URL+"/ui/"+podPath),
		waitFor(`document.querySelector('#pod-ready')?.dataset.ready === 'not ready'`))
	podNS, podName, _ := strings.Cut(strings.TrimPrefix(podPath, "#/pods/"), "/")
	podAPI := srv.URL + "/api/v1/namespaces/" + podNS + "/pods/" + podName
	browse(t, tab, "mark the pod's page", script(`window.herdTestMark = 'pod page'`))
	var before, after corev1.Pod
	reads := `performance.getEntriesByType('resource').filter((e) => e.name.includes('/explanation')).length`
	mustCall(t, http.StatusOK, http.MethodGet, podAPI, nil, &before)
	readsBefore := read(t, tab, "the page's reads so far", evaluate[int](reads))
	time.Sleep(5 * time.Second)
	readsAfter := read(t, tab, "the page's reads since", evaluate[int](reads))
	mustCall(t, http.StatusOK, http.MethodGet, podAPI, nil, &after)
	if after.ResourceVersion == before.ResourceVersion && readsAfter != readsBefore {
		t.Errorf("the pod stayed at resourceVersion %s, and its page read it again %d times in 5 s", after.ResourceVersion, readsAfter-readsBefore)
	}
	beats.quiet.Delete("web-01")
	browse(t, tab, "the pod turns ready on its page", waitFor(`document.querySelector('#pod-ready')?.dataset.ready === 'ready'`))
	if mark := read(t, tab, "the page's mark", evaluate[string](`window.herdTestMark || ''`)); mark != "pod page" {
		t.Fatal("the page was reloaded to show the pod ready")
	}
}

// TestWebViewActsOnlyForAdmins: with tokens on, the page asks for one; a
// viewer sees the fleet and no action, and an action forged from the
// viewer's page is refused (403) and changes nothing; an admin drains a
// node from its page, after a confirmation, the node's pods move to the
// other node, and the audit log names the admin.
func TestWebViewActsOnlyForAdmins(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	tokens := writeTokens(t, t.TempDir(), "admin-token,alice,1,herd:admins", "viewer-token,victor,2,herd:viewers")
	srv := startServe(t, serveOptions{Args: []string{"--token-auth-file", tokens}})
	admin := newTokenClient(t, srv.URL, "", "admin-token")
	for _, n := range []string{"big-a", "big-b"} {
		body, _ := json.Marshal(nodeJSON(t, "agent-node.json", n, bigNode))
		if code, out := admin.do(t, http.MethodPut, "/apis/herd.dev/v1/nodes/"+n+"/registration", "application/json", string(body), nil); code != http.StatusOK {
			t.Fatalf("register %s: %d %s", n, code, out)
		}
	}
	keepBeating(t, srv.URL, "admin-token", time.Second, "big-a", "big-b")
	// Every pod starts on big-a: big-b is cordoned until they run.
	cordon := func(node string, on bool) {
		spec := `{"spec":{"unschedulable":true}}`
		if !on {
			spec = `{"spec":{"unschedulable":null}}`
		}
		if code, out := admin.do(t, http.MethodPatch, "/api/v1/nodes/"+node, "application/strategic-merge-patch+json", spec, nil); code != http.StatusOK {
			t.Fatalf("cordon %s %v: %d %s", node, on, code, out)
		}
	}
	cordon("big-b", true)
	if code, out := admin.do(t, http.MethodPost, "/apis/apps/v1/namespaces/default/deployments", "application/json", `{
		"metadata": {"name": "web"},
		"spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
		  "template": {"metadata": {"labels": {"app": "web"}},
		    "spec": {"terminationGracePeriodSeconds": 1, "containers": [{"name": "app", "image": "nginx"}]}}}}`, nil); code != http.StatusCreated {
		t.Fatalf("create the Deployment: %d %s", code, out)
	}
	readyOn := func() map[string]int {
		var pods corev1.PodList
		admin.do(t, http.MethodGet, "/api/v1/namespaces/default/pods", "", "", &pods)
		on := map[string]int{}
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
					on[p.Spec.NodeName]++
				}
			}
		}
		return on
	}
	eventually(t, 60*time.Second, func() error {
		if on := readyOn(); on["big-a"] != 2 {
			return fmt.Errorf("pods Ready by node: %v, want 2 on big-a", on)
		}
		return nil
	})
	cordon("big-b", false)

	signIn := func(token, user string) {
		browse(t, tab, "the page asks for a token", chromedp.WaitVisible("#login"))
		browse(t, tab, "sign in as "+user, chromedp.SendKeys("#token", token), clickRedrawn(`#login button[type="submit"]`),
			waitFor(fmt.Sprintf(`document.getElementById('who').textContent.includes(%q)`, user)))
	}
	browse(t, tab, "open the page", chromedp.Navigate(srv.URL+"/ui/"))
	screenshot(t, tab, "sign-in")
	signIn("viewer-token", "victor")
	browse(t, tab, "the fleet as a viewer", waitFor(tileReady("big-a", "Ready")))
	who := read(t, tab, "who is signed in", chromedp.Text("#who"))
	if !strings.Contains(who, "victor") || !strings.Contains(who, "viewer") {
		t.Errorf("the page says the user is %q, want victor, a viewer", who)
	}
	browse(t, tab, "big-a's page as a viewer", chromedp.Navigate(srv.URL+"/ui/#/nodes/big-a"), chromedp.WaitVisible("#node-state"),
		chromedp.WaitVisible(`tr.pod`))
	buttons := read(t, tab, "count the action buttons", evaluate[int](`document.querySelectorAll('#node-actions button').length`))
	if buttons != 0 {
		t.Errorf("a viewer sees %d action buttons, want none", buttons)
	}
	screenshot(t, tab, "node-as-viewer")
	// What a viewer could send by hand from the page, with its token.
	for _, forged := range []struct{ method, path, contentType, body string }{
		{"POST", "/apis/herd.dev/v1/nodes/big-a/drain", "application/json", `{}`},
		{"PATCH", "/api/v1/nodes/big-a", "application/strategic-merge-patch+json", `{"spec":{"unschedulable":true}}`},
	} {
		code := read(t, tab, "forge "+forged.method+" "+forged.path, evaluate[int](fmt.Sprintf(`fetch(%q, {method: %q, headers: {
			Authorization: 'Bearer ' + sessionStorage.getItem('herd.token'), 'Content-Type': %q}, body: %q}).then((r) => r.status)`,
			forged.path, forged.method, forged.contentType, forged.body)))
		if code != http.StatusForbidden {
			t.Errorf("a viewer's forged %s %s: %d, want 403", forged.method, forged.path, code)
		}
	}
	var n corev1.Node
	admin.do(t, http.MethodGet, "/api/v1/nodes/big-a", "", "", &n)
	if n.Spec.Unschedulable || n.Annotations["herd.dev/agent-state"] != "Ready" {
		t.Fatalf("after a viewer's forged actions big-a is unschedulable=%v, %s; want neither changed", n.Spec.Unschedulable, n.Annotations["herd.dev/agent-state"])
	}

	browse(t, tab, "sign out", clickRedrawn("#sign-out"))
	signIn("admin-token", "alice")
	browse(t, tab, "big-a's page as an admin", chromedp.Navigate(srv.URL+"/ui/#/nodes/big-a"), chromedp.WaitVisible("#drain"))
	browse(t, tab, "ask to drain", clickRedrawn("#drain"), chromedp.WaitVisible("#confirm-ok"), chromedp.SendKeys("#grace-period", "1"))
	screenshot(t, tab, "drain-confirmation")
	browse(t, tab, "confirm", clickRedrawn("#confirm-ok"), chromedp.WaitVisible("#action-result .ok"))
	eventually(t, 60*time.Second, func() error {
		if on := readyOn(); on["big-b"] != 2 || on["big-a"] != 0 {
			return fmt.Errorf("pods Ready by node after the drain: %v, want both on big-b", on)
		}
		return nil
	})
	browse(t, tab, "big-a drained on its page", waitFor(`document.getElementById('agent-state')?.textContent === 'Drained'`))
	screenshot(t, tab, "node-drained")

	var list httpapi.AuditEventList
	admin.do(t, http.MethodGet, "/apis/herd.dev/v1/auditevents?"+url.Values{"stream": {"node/big-a"}, "type": {"NodeDrainStarted"}}.Encode(), "", "", &list)
	if len(list.Items) != 1 || list.Items[0].Actor != "alice" || list.Items[0].Source != "httpapi" {
		t.Fatalf("the audit log's drains of big-a: %+v, want one by alice through the API", list.Items)
	}
	browse(t, tab, "the drain in the audit log", chromedp.Navigate(srv.URL+"/ui/#/audit?stream=node/big-a&type=NodeDrainStarted"),
		chromedp.WaitVisible(`tr.audit-event[data-type="NodeDrainStarted"]`))
	row := read(t, tab, "read the drain's row", chromedp.Text(`tr.audit-event[data-type="NodeDrainStarted"]`))
	if !strings.Contains(row, "alice") {
		t.Errorf("the audit page's drain row %q does not name alice", row)
	}
	screenshot(t, tab, "audit-drain")

	// A pod's eviction names the drain as its cause: a click on the cause
	// shows the chain, the drain by alice at its end.
	var pods httpapi.AuditEventList
	admin.do(t, http.MethodGet, "/apis/herd.dev/v1/auditevents?"+url.Values{"stream": {"pod/default/"}, "limit": {"1000"}}.Encode(), "", "", &pods)
	var caused *httpapi.AuditEvent
	for i, e := range pods.Items {
		if e.CausationID == list.Items[0].ID {
			caused = &pods.Items[i]
			break
		}
	}
	if caused == nil {
		t.Fatalf("no pod event names the drain (%s) as its cause", list.Items[0].ID)
	}
	browse(t, tab, "the caused event in the audit log", chromedp.Navigate(srv.URL+"/ui/#/audit?stream="+url.QueryEscape(caused.Stream)),
		clickRedrawn(fmt.Sprintf(`tr.audit-event[data-position="%d"] a.cause`, caused.Position)),
		chromedp.WaitVisible(`#chain tr.audit-event[data-type="NodeDrainStarted"]`))
	chain := read(t, tab, "the chain", evaluate[[]string](`[...document.querySelectorAll('#chain tr.audit-event')].map((r) => r.dataset.type)`))
	if len(chain) < 2 || chain[0] != caused.Type || chain[len(chain)-1] != "NodeDrainStarted" {
		t.Errorf("the cause chain of %s: %v, want it first and NodeDrainStarted last", caused.Type, chain)
	}
	screenshot(t, tab, "audit-cause-chain")

	// And forward: the drain's "led to" lists what it set off, the pod's
	// event among them.
	browse(t, tab, "what the drain led to", clickRedrawn(`#chain tr.audit-event[data-type="NodeDrainStarted"] a.effects`),
		chromedp.WaitVisible(fmt.Sprintf(`#effects tr.audit-event[data-position="%d"]`, caused.Position)))
	effects := read(t, tab, "the effects", evaluate[[]string](`[...document.querySelectorAll('#effects tr.audit-event')].map((r) => r.dataset.type)`))
	if slices.Contains(effects, "NodeDrainStarted") {
		t.Errorf("what the drain led to %v holds the drain itself", effects)
	}
	screenshot(t, tab, "audit-effects")
}

// TestWebViewDrawsABigFleetOnCanvases: past a thousand nodes the
// overview draws each group on a canvas; a change to one node repaints
// its square live, and a click on a square opens its node's page.
func TestWebViewDrawsABigFleetOnCanvases(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{})
	const nodes = 1100
	load := runWithin(t, 3*time.Minute, childEnv(), herdBinary(t), "loadgen", "--server", srv.URL, "--style", "kubelet", "--nodes", strconv.Itoa(nodes),
		"--connections", "16", "--idle", "--duration", "1s")
	if load.Code != 0 {
		t.Fatalf("herd loadgen: %d\n%s%s", load.Code, load.Stdout, load.Stderr)
	}
	browse(t, tab, "open the overview", chromedp.Navigate(srv.URL+"/ui/"),
		waitFor(fmt.Sprintf(`document.getElementById('tiles')?.dataset.shown === '%d' && !!document.querySelector('canvas.tile-map')`, nodes)))
	const node = "loadgen-kubelet-00042" // herd loadgen's names
	browse(t, tab, node+" Ready on its canvas", waitFor(tileReady(node, "Ready")))
	if code, out := newTokenClient(t, srv.URL, "", "").do(t, http.MethodPatch, "/api/v1/nodes/"+node, "application/merge-patch+json", `{"spec":{"unschedulable":true}}`, nil); code != http.StatusOK {
		t.Fatalf("cordon %s: %d %s", node, code, out)
	}
	browse(t, tab, node+" cordoned on its canvas without a reload", waitFor(fmt.Sprintf(`(() => {
		for (const c of document.querySelectorAll('canvas.tile-map')) { const n = c.tileMap.shown(%q); if (n) return n.state === 'Cordoned'; }
		return false;
	})()`, node)))
	screenshot(t, tab, "overview-canvas")
	browse(t, tab, "click "+node+"'s square", script(fmt.Sprintf(`(() => {
		for (const c of document.querySelectorAll('canvas.tile-map')) {
			const m = c.tileMap, i = m.index.get(%q);
			if (i === undefined) continue;
			const r = c.getBoundingClientRect(), step = r.width / m.cols;
			c.dispatchEvent(new MouseEvent('click', { clientX: r.left + (i %% m.cols) * step + 3, clientY: r.top + Math.floor(i / m.cols) * step + 3, bubbles: true }));
		}
	})()`, node)), waitFor(fmt.Sprintf(`document.querySelector('#node-head h1')?.textContent.startsWith(%q)`, node)))

	// The keyboard: to the map, End to its last square, Left to the one
	// before, Enter opens that node.
	browse(t, tab, "back to the overview", chromedp.NavigateBack(), waitFor(`!!document.querySelector('canvas.tile-map')`))
	browse(t, tab, "walk the map with the keyboard", chromedp.Focus(`canvas.tile-map`), chromedp.KeyEvent(kb.End), chromedp.KeyEvent(kb.ArrowLeft))
	label := read(t, tab, "the focused square's label", chromedp.AttributeValue(`canvas.tile-map`, "aria-label")).Value
	if want := fmt.Sprintf("loadgen-kubelet-%05d: Ready", nodes-2); !strings.HasPrefix(label, want) {
		t.Errorf("the map's label with the cursor on its last square but one: %q, want %s...", label, want)
	}
	browse(t, tab, "open it", chromedp.KeyEvent(kb.Enter),
		waitFor(fmt.Sprintf(`document.querySelector('#node-head h1')?.textContent.startsWith('loadgen-kubelet-%05d')`, nodes-2)))
}

// TestWebViewPlaysHistoryBack: the time control steps from change to
// change (heartbeats aside), forward and back, takes an exact time typed
// in, and plays history forward until it reaches now and is live again;
// the overview shows the fleet of each moment.
func TestWebViewPlaysHistoryBack(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{})
	server := "--server=" + srv.URL
	for _, n := range []string{"pb-1", "pb-2"} {
		registerAgent(t, srv.URL, n)
	}
	mustHerd(t, "node", "cordon", "pb-2", server)

	// The changes, as the step buttons see them: heartbeats and lease
	// renewals aside, each moment once.
	var list httpapi.AuditEventList
	q := url.Values{"excludeType": {"HeartbeatRecorded,LeaseRenewed"}, "limit": {"1000"}}
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?"+q.Encode(), nil, &list)
	var moments []string
	registered := map[string]string{} // node -> the moment it registered
	for _, e := range list.Items {
		if len(moments) == 0 || moments[len(moments)-1] != e.RecordedAt.Format(time.RFC3339Nano) {
			moments = append(moments, e.RecordedAt.Format(time.RFC3339Nano))
		}
		if e.Type == "NodeRegistered" {
			registered[strings.TrimPrefix(e.Stream, "node/")] = moments[len(moments)-1]
		}
	}
	first := slices.Index(moments, registered["pb-1"])
	if first < 0 || registered["pb-2"] == "" || len(moments) < first+3 {
		t.Fatalf("the log's moments %v: want pb-1's and pb-2's registrations and a change after", moments)
	}
	shownAt := func() string {
		return read(t, tab, "the moment shown", evaluate[string](`new URLSearchParams(location.hash.split('?')[1] || '').get('at') || ''`))
	}

	at := url.Values{"at": {registered["pb-1"]}}
	browse(t, tab, "the fleet when pb-1 registered", chromedp.Navigate(srv.URL+"/ui/#/?"+at.Encode()),
		chromedp.WaitVisible("#past-marker"), chromedp.WaitVisible(`.tile[data-node="pb-1"]`))
	if n := read(t, tab, "pb-2 then", evaluate[int](`document.querySelectorAll('.tile[data-node="pb-2"]').length`)); n != 0 {
		t.Errorf("pb-2 shown before it registered")
	}
	browse(t, tab, "step forward", clickRedrawn("#step-forward"))
	browse(t, tab, "the next change shown", waitFor(fmt.Sprintf(`new URLSearchParams(location.hash.split('?')[1]).get('at') === %q`, moments[first+1])))
	browse(t, tab, "step back", clickRedrawn("#step-back"))
	browse(t, tab, "the change before shown", waitFor(fmt.Sprintf(`new URLSearchParams(location.hash.split('?')[1]).get('at') === %q`, moments[first])))
	screenshot(t, tab, "playback-step")

	// An exact time: pb-2's registration, typed in (to the millisecond).
	reg2, err := time.Parse(time.RFC3339Nano, registered["pb-2"])
	if err != nil {
		t.Fatal(err)
	}
	exact := reg2.Add(time.Millisecond).Truncate(time.Millisecond)
	browse(t, tab, "type an exact time", script(fmt.Sprintf(`(() => {
		const d = new Date(%d), el = document.getElementById('asof-exact');
		el.value = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 23);
		el.dispatchEvent(new Event('change'));
	})()`, exact.UnixMilli())))
	browse(t, tab, "pb-2 shown at that time", waitFor(`document.querySelector('.tile[data-node="pb-2"]') !== null`))
	if got := shownAt(); got != exact.UTC().Format("2006-01-02T15:04:05.000Z") {
		t.Errorf("the moment shown after typing %s: %q", exact.UTC().Format(time.RFC3339Nano), got)
	}

	// Played from pb-1's registration at an hour a second, history runs
	// out at once: the view is live again and the button says play.
	browse(t, tab, "go back to pb-1's registration", chromedp.Navigate(srv.URL+"/ui/#/?"+at.Encode()), chromedp.WaitVisible(`.tile[data-node="pb-1"]`))
	browse(t, tab, "play at 3600×", chromedp.SetValue("#speed", "3600"), clickRedrawn("#play"))
	browse(t, tab, "live again when history runs out", chromedp.WaitNotVisible("#past-marker"),
		waitFor(`document.getElementById('play').textContent === '▶'`))
	if got := shownAt(); got != "" {
		t.Errorf("after playing to now the page shows %q, want live", got)
	}
	browse(t, tab, "both nodes live", chromedp.WaitVisible(`.tile[data-node="pb-2"]`))
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"herd/cmd/herd/whatif"
)

// TestWebViewAsksWhatIf: on the web view's What if page an operator
// finds the window set to the last hour and every duration a what-if
// may change offered, herd serve's own value beside each; a pod GC
// timeout of 0s is refused by herd, and the page says so beside it; the
// operator moves the window's start, sets the node grace period to 8 s
// and the pod GC timeout to 2m, adds "demo-linux-00 fails" a second
// into the window and runs it: the answer names the settings changed and
// shows demo-linux-00 going NotReady in the what-if, with its chain of
// causes, each node linked to its page.
func TestWebViewAsksWhatIf(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	// 8 s of grace and up to 5 s to the next check after a failure a
	// second in: the window must reach 14 s past its start.
	since := demoWindow(t, srv.URL, 2, 20*time.Second)

	browse(t, tab, "the What if page", chromedp.Navigate(srv.URL+"/ui/#/whatif"), chromedp.WaitVisible("#whatif-form"))
	// The window's start defaults to an hour ago (the input keeps
	// seconds, in the browser's time zone).
	defaultAgo := read(t, tab, "the default start", evaluate[float64](`(Date.now() - new Date(document.getElementById('whatif-since').value).getTime()) / 1000`))
	if defaultAgo < 3590 || defaultAgo > 3700 {
		t.Errorf("the window starts %.0f s ago by default, want the last hour", defaultAgo)
	}
	// Every duration herd's what-if takes is offered, in herd's order,
	// with herd serve's own value.
	browse(t, tab, "herd's settings offered", chromedp.WaitVisible("#whatif-setting-nodeMonitorGracePeriod"))
	offered := read(t, tab, "the settings offered", evaluate[[]string](`[...document.querySelectorAll('#whatif-settings input[data-setting]')].map((i) => i.dataset.setting + ' ' + i.placeholder)`))
	var want []string
	for _, d := range whatif.DurationSettings {
		want = append(want, d.Name)
	}
	for _, n := range whatif.NumberSettings {
		want = append(want, n.Name)
	}
	want = append(want, "schedulerScoringStrategy", "schedulerScoringShape")
	if len(offered) != len(want) {
		t.Fatalf("the page offers the settings %q, want one for each of %q", offered, want)
	}
	for i, o := range offered {
		if !strings.HasPrefix(o, want[i]+" herd's own (") {
			t.Errorf("setting %d is offered as %q, want %s with herd's own value", i, o, want[i])
		}
	}
	if o := offered[0]; o != "nodeMonitorGracePeriod herd's own (40s)" {
		t.Errorf("the grace period is offered as %q, want herd serve's 40s", o)
	}
	// A value herd refuses: the page says what herd said, beside it.
	browse(t, tab, "ask with a pod GC timeout of 0s",
		chromedp.SendKeys("#whatif-setting-podGCTimeout", "0s"),
		clickRedrawn("#whatif-run"),
		waitFor(`location.hash.includes('podGCTimeout=0s') && !!document.querySelector('#whatif-answer .error')`),
		waitFor(`document.getElementById('whatif-setting-podGCTimeout')?.getAttribute('aria-invalid') === 'true'`))
	refusal := read(t, tab, "the refusal", evaluate[string](`document.querySelector('#whatif-answer .error').textContent + ' | ' +
		document.getElementById('whatif-setting-podGCTimeout').parentElement.querySelector('.whatif-setting-error').textContent`))
	for _, w := range []string{"400", "spec.settings.podGCTimeout", "positive duration |", "| Invalid value"} {
		if !strings.Contains(refusal, w) {
			t.Errorf("the refusal reads %q: want %q in it", refusal, w)
		}
	}
	screenshot(t, tab, "whatif-refused")
	// A change herd refuses (a drain in the future): its row says why.
	browse(t, tab, "ask with a drain an hour from now",
		clickRedrawn("#whatif-add-drain"),
		chromedp.WaitVisible(`#whatif-changes li[data-kind="drain"] .whatif-node`),
		chromedp.SendKeys(`#whatif-changes li[data-kind="drain"] .whatif-node`, "demo-linux-00"),
		script(`document.querySelector('#whatif-changes li[data-kind="drain"] .whatif-at').value =
			(() => { const d = new Date(Date.now() + 3600e3); return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19); })()`),
		clickRedrawn("#whatif-run"),
		waitFor(`document.querySelector('#whatif-changes li[data-kind="drain"]')?.getAttribute('aria-invalid') === 'true'`))
	if row := read(t, tab, "the drain's row", evaluate[string](`document.querySelector('#whatif-changes li[data-kind="drain"] .whatif-row-error')?.textContent || ''`)); !strings.Contains(row, "in the future") {
		t.Errorf("the refused drain's row says %q: want herd's reason, a time in the future", row)
	}
	browse(t, tab, "take the drain out", clickRedrawn(`#whatif-changes li[data-kind="drain"] .whatif-remove`),
		waitFor(`!document.querySelector('#whatif-changes li')`))
	browse(t, tab, "set the pod GC timeout to 2m", script(`document.getElementById('whatif-setting-podGCTimeout').value = '2m'`))

	sinceISO := since.UTC().Format(time.RFC3339)
	failsISO := since.Add(time.Second).UTC().Format(time.RFC3339)
	// datetime-local inputs take the operator's local time.
	local := func(iso string) string {
		return fmt.Sprintf(`(() => { const d = new Date(%q); return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19); })()`, iso)
	}
	browse(t, tab, "ask: demo-linux-00 fails, with a grace period of 8 s",
		script(`document.getElementById('whatif-since').value = `+local(sinceISO)),
		chromedp.SendKeys("#whatif-setting-nodeMonitorGracePeriod", "8s"),
		clickRedrawn("#whatif-add-fail"),
		chromedp.WaitVisible(`#whatif-changes li[data-kind="fail"] .whatif-node`),
		chromedp.SendKeys(`#whatif-changes li[data-kind="fail"] .whatif-node`, "demo-linux-00"),
		script(`document.querySelector('#whatif-changes li[data-kind="fail"] .whatif-at').value = `+local(failsISO)),
		// The refusal of the question before is still on the page until
		// the new one is drawn: cleared, so that the wait below cannot
		// take it for the new answer.
		script(`document.getElementById('whatif-answer').innerHTML = ''`),
		clickRedrawn("#whatif-run"),
	)
	// The question is in the route: the answer can be linked to.
	hash := read(t, tab, "the route asked", evaluate[string](`location.hash`))
	for _, want := range []string{"nodeMonitorGracePeriod=8s", "podGCTimeout=2m", "fail=demo-linux-00%40"} {
		if !strings.Contains(hash, want) {
			t.Errorf("the route %s does not carry %s", hash, want)
		}
	}
	row := `[...document.querySelectorAll('table.whatif tr')].find((tr) => tr.querySelector('a.whatif-node-link[href="#/nodes/demo-linux-00"]'))`
	// A what-if takes seconds, longer than a page's usual wait on a
	// loaded machine.
	answered, cancel := context.WithTimeout(tab, 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(answered, waitFor(`!!document.querySelector('#whatif-summary, #whatif-answer .error')`)); err != nil {
		failBrowsing(t, tab, "the answer", err)
	}
	if e := read(t, tab, "an error shown", evaluate[string](`document.querySelector('#whatif-answer .error')?.textContent || ''`)); e != "" {
		t.Fatalf("the What if page shows an error: %s", e)
	}
	browse(t, tab, "demo-linux-00 marked in the what-if", waitFor(`!!(`+row+`)`))
	screenshot(t, tab, "whatif-node-fails")
	summary := read(t, tab, "the summary", evaluate[string](`document.getElementById('whatif-summary').textContent`))
	for _, want := range []string{"node grace period of 8s", "pod GC timeout of 2m0s instead of herd's 1m0s", "node demo-linux-00 fails at", "would have differed"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary does not say %q:\n%s", want, summary)
		}
	}
	cells := read(t, tab, "demo-linux-00's row", evaluate[[]string](`[...(`+row+`).cells].map((c) => c.textContent.trim())`))
	if len(cells) != 4 || cells[1] != "never" || cells[2] == "never" || !strings.Contains(cells[3], "because") {
		t.Errorf("demo-linux-00's row reads %q: want never NotReady in herd, a time in the what-if and its causes", cells)
	}
	browse(t, tab, "open demo-linux-00's page from the answer", clickRedrawn(`table.whatif a.whatif-node-link[href="#/nodes/demo-linux-00"]`),
		waitFor(`location.hash === '#/nodes/demo-linux-00'`))

	// Once the demo's pods run on demo-linux-00: what if it had been
	// drained then? Its pods' evictions and new places are shown, each
	// pod linked to the pods page.
	eventually(t, 90*time.Second, func() error {
		var pods corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/namespaces/demo/pods", nil, &pods)
		for _, p := range pods.Items {
			if p.Spec.NodeName == "demo-linux-00" && p.Status.Phase == corev1.PodRunning && !strings.HasPrefix(p.Name, "log-shipper-") {
				return nil
			}
		}
		return errors.New("none of the demo's Deployments' pods runs on demo-linux-00 yet")
	})
	drainAt := time.Now().Add(time.Second).Truncate(time.Second)
	eventually(t, 60*time.Second, func() error {
		var nodes corev1.NodeList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes", nil, &nodes)
		for _, n := range nodes.Items {
			i := slices.IndexFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
			if i < 0 || !n.Status.Conditions[i].LastHeartbeatTime.After(drainAt.Add(5*time.Second)) {
				return fmt.Errorf("node %s has not reported since the drain", n.Name)
			}
		}
		return nil
	})
	// A budget that covers none of the demo's pods: set otherwise in
	// the what-if, it changes nothing, and the answer says it was set.
	mustCall(t, http.StatusCreated, http.MethodPost, srv.URL+"/apis/policy/v1/namespaces/demo/poddisruptionbudgets", policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "quiet"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nothing"}}},
	}, nil)
	budgetAt := time.Now().Add(time.Second).Truncate(time.Second)
	// A fresh page: the window is the last hour, the whole demo.
	browse(t, tab, "the What if page again", script(`location.hash = '#/whatif'`), chromedp.WaitVisible("#whatif-form"),
		waitFor(`!document.querySelector('#whatif-changes li')`))
	browse(t, tab, "ask: demo-linux-00 drained once its pods run, with herd's own grace period, a threshold of 0.9 and a budget set",
		chromedp.WaitVisible("#whatif-setting-unhealthyFleetThreshold"),
		// The settings herd offers include the secondary eviction rate,
		// a large fleet's size in whole nodes, and the scheduler's
		// scoring shape in its own form (herd runs without one).
		waitFor(`document.querySelector('#whatif-setting-largeFleetSizeThreshold')?.step === '1' &&
			!!document.querySelector('#whatif-setting-secondaryNodeEvictionRate') &&
			document.querySelector('#whatif-setting-schedulerScoringShape')?.placeholder === "herd's own (none)"`),
		chromedp.SendKeys("#whatif-setting-unhealthyFleetThreshold", "0.9"),
		chromedp.SendKeys("#whatif-eviction-retry", "10s"),
		clickRedrawn("#whatif-add-drain"),
		chromedp.WaitVisible(`#whatif-changes li[data-kind="drain"] .whatif-node`),
		chromedp.SendKeys(`#whatif-changes li[data-kind="drain"] .whatif-node`, "demo-linux-00"),
		script(`document.querySelector('#whatif-changes li[data-kind="drain"] .whatif-at').value = `+local(drainAt.UTC().Format(time.RFC3339))),
		clickRedrawn("#whatif-add-budget"),
		chromedp.WaitVisible(`#whatif-changes li[data-kind="budget"] .whatif-budget`),
		waitFor(`!!document.querySelector('#whatif-budgets option[value="demo/quiet"]')`),
		chromedp.SendKeys(`#whatif-changes li[data-kind="budget"] .whatif-budget`, "demo/quiet"),
		chromedp.SetValue(`#whatif-changes li[data-kind="budget"] .whatif-budget-field`, "maxUnavailable"),
		chromedp.SendKeys(`#whatif-changes li[data-kind="budget"] .whatif-budget-value`, "0"),
		script(`document.querySelector('#whatif-changes li[data-kind="budget"] .whatif-at').value = `+local(budgetAt.UTC().Format(time.RFC3339))),
		clickRedrawn("#whatif-run"),
	)
	drained, cancelDrained := context.WithTimeout(tab, 3*time.Minute)
	defer cancelDrained()
	if err := chromedp.Do(drained, waitFor(`location.hash.includes('drain=') && !!document.querySelector('#whatif-summary, #whatif-answer .error')`)); err != nil {
		failBrowsing(t, tab, "the answer with the drain", err)
	}
	if e := read(t, tab, "an error shown", evaluate[string](`document.querySelector('#whatif-answer .error')?.textContent || ''`)); e != "" {
		t.Fatalf("the What if page shows an error: %s", e)
	}
	evicted := `[...document.querySelectorAll('.whatif-section')].find((s) => s.querySelector('h2').textContent === 'Evictions')`
	browse(t, tab, "the drain's evictions", waitFor(`!!(`+evicted+`)?.querySelector('a.whatif-pod-link')`))
	screenshot(t, tab, "whatif-drain")
	hash = read(t, tab, "the route asked", evaluate[string](`location.hash`))
	for _, want := range []string{"unhealthyFleetThreshold=0.9", "budget=demo%2Fquiet%3AmaxUnavailable%3D0%40", "evictionRetry=10s"} {
		if !strings.Contains(hash, want) {
			t.Errorf("the route %s does not carry %s", hash, want)
		}
	}
	summary = read(t, tab, "the summary", evaluate[string](`document.getElementById('whatif-summary').textContent`))
	for _, want := range []string{"unhealthy fleet threshold of 0.9 instead of herd's 0.55", "an operator sets PodDisruptionBudget demo/quiet to maxUnavailable 0 at",
		"a client asks again every 10s for an eviction a budget refused"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary does not say %q:\n%s", want, summary)
		}
	}
	why := read(t, tab, "the evictions' causes", evaluate[string](`(`+evicted+`).textContent`))
	if !strings.Contains(why, "by drain") || !strings.Contains(why, "NodeDrainStarted") {
		t.Errorf("the Evictions section does not show the drain's evictions and the drain among their causes:\n%s", why)
	}
	browse(t, tab, "open an evicted pod from the answer", clickRedrawn(`.whatif-section a.whatif-pod-link`),
		waitFor(`location.hash.startsWith('#/pods?filter=')`))
}

// TestWebViewCountsTheTimesItDoesNotList: an answer in which a node would
// have gone NotReady nine times and a workload's pods been evicted eight
// times (a day's window has hundreds) shows each node's and pod's first
// five and counts the rest with the last, as herd sends it: the page is
// given the answer herd's own JSON writes for such a report, in place of
// the simulation's, which would take a day of history to say as much.
func TestWebViewCountsTheTimesItDoesNotList(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{})
	start := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	every := make([]time.Time, 9)
	var evicted []whatif.Eviction
	for i := range every {
		every[i] = start.Add(time.Duration(i) * 4 * time.Minute)
		evicted = append(evicted, whatif.Eviction{Node: fmt.Sprintf("web-%02d", i+1), At: every[i], By: "system:herd:noexecute"})
	}
	answer, err := json.Marshal(map[string]any{
		"apiVersion": "herd.dev/v1", "kind": "WhatIf",
		"spec": map[string]any{"since": start, "settings": map[string]any{"nodeMonitorGracePeriod": "8s", "nodeMonitorPeriod": "5s", "nodeStartupGracePeriod": "1m0s"}},
		"status": whatif.Report{
			Since: start, Until: start.Add(time.Hour), From: 1, To: 90, Events: 90,
			Nodes: []whatif.NodeDifference{{Node: "web-01", WhatIf: every}},
			Pods:  []whatif.PodDifference{{Pod: "default/api-*", WhatIf: evicted[:8]}},
			RefusedEvictions: []whatif.RefusedEviction{{Pod: "default/api-*", At: every[2], Actor: "admin", Budget: "default/api",
				Cause: "Cannot evict pod as it would violate the pod's disruption budget.", Asks: 4, GrantedAt: &every[3]},
				{Pod: "default/db-*", At: every[2], Actor: "admin", Budget: "default/db", Cause: "no", Asks: 2, GoneAt: &every[3]}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	browse(t, tab, "the What if page", chromedp.Navigate(srv.URL+"/ui/#/whatif"), chromedp.WaitVisible("#whatif-form"),
		script(fmt.Sprintf(`(() => { const herds = window.fetch, answer = %q;
			window.fetch = (url, init) => String(url).includes('/whatifs') && !String(url).includes('dryRun')
				? Promise.resolve(new Response(answer, { status: 200, headers: { 'Content-Type': 'application/json' } }))
				: herds(url, init); })()`, answer)),
		clickRedrawn("#whatif-run"),
		waitFor(`!!document.querySelector('#whatif-summary, #whatif-answer .error')`))
	section := func(title string) string {
		return read(t, tab, "the "+title+" section", evaluate[string](fmt.Sprintf(
			`[...document.querySelectorAll('.whatif-section')].find((s) => s.querySelector('h2').textContent === %q)?.textContent || ''`, title)))
	}
	screenshot(t, tab, "whatif-counted")
	nodes, pods := section("Nodes"), section("Evictions")
	for what, text := range map[string]string{"Nodes": nodes, "Evictions": pods} {
		if !strings.Contains(text, " more, the last ") {
			t.Errorf("the %s section does not count what it does not list:\n%s", what, text)
		}
	}
	if !strings.Contains(nodes, "and 4 more, the last at") {
		t.Errorf("web-01's nine times read %q: want five listed and 4 more counted", nodes)
	}
	if !strings.Contains(pods, "and 3 more, the last from web-08 at") {
		t.Errorf("the pods' eight evictions read %q: want five listed and 3 more counted, the last from web-08", pods)
	}
	refused := read(t, tab, "the refused eviction", evaluate[string](`document.querySelector('#whatif-summary .whatif-refused')?.textContent || ''`))
	if !strings.Contains(refused, "The eviction of pod default/api-* admin asked for at") || !strings.Contains(refused, "would have been refused by PodDisruptionBudget default/api") ||
		!strings.Contains(refused, "asked again, it would have been granted at") || !strings.Contains(refused, "on ask 4") {
		t.Errorf("the summary says of the refused eviction %q: want the pod, who asked, the budget, and the later ask granted", refused)
	}
	gone := read(t, tab, "the eviction whose pod went otherwise", evaluate[string](`document.querySelectorAll('#whatif-summary .whatif-refused')[1]?.textContent || ''`))
	if !strings.Contains(gone, "asked again, the pod had gone otherwise by") || !strings.Contains(gone, "(ask 2)") {
		t.Errorf("the summary says of the second refused eviction %q: want its pod gone otherwise by the second ask", gone)
	}
	if listed := read(t, tab, "the evictions listed", evaluate[int](`document.querySelectorAll('.whatif-section a.whatif-node-link').length`)); listed != 1+5+1 {
		t.Errorf("the answer links %d nodes: want web-01, the five evictions' nodes listed and the last's", listed)
	}
}

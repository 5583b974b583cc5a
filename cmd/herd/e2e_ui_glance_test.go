package main

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
)

// TestWebViewReadsAtAGlance: what a first look at a node and the audit
// log should show a person. The node's CPU and memory read in one unit
// on both sides of "of"; the heartbeat gaps are drawn from 0, so steady
// heartbeats read as a flat line; no two time labels of a chart overlap,
// at a wide window and a narrow one; the audit log opens without
// heartbeats and shows them after one click.
func TestWebViewReadsAtAGlance(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{})
	registerAgent(t, srv.URL, "web-01") // allocatable: 3500m CPU, 7Gi memory
	heartbeat(t, srv.URL, "web-01", healthyMetrics())
	createPods(t, srv.URL, "app", 3) // 100m CPU and 64Mi each
	const interval = 200 * time.Millisecond
	beats := keepBeating(t, srv.URL, "", interval, "web-01")
	eventually(t, 30*time.Second, func() error {
		if n := beats.beats.Load(); n < 15 {
			return fmt.Errorf("%d heartbeats so far", n)
		}
		var pods corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/pods?fieldSelector=spec.nodeName%3Dweb-01", nil, &pods)
		if len(pods.Items) != 3 {
			return fmt.Errorf("%d pods on web-01, want 3", len(pods.Items))
		}
		return nil
	})

	browse(t, tab, "web-01's page", chromedp.Navigate(srv.URL+"/ui/#/nodes/web-01"),
		waitFor(`document.querySelectorAll('#node-pods tr.pod').length === 3`),
		waitFor(`document.querySelector('#node-capacity tr[data-quantity="CPU"] .amount')?.textContent.includes(' of ')`),
		chromedp.WaitVisible(`#node-charts svg.plot`))
	cpu := read(t, tab, "the CPU requested", chromedp.Text(`#node-capacity tr[data-quantity="CPU"] .amount`))
	if cpu != "0.3 of 3.5 cores" {
		t.Errorf("the CPU row says %q, want %q: requests and allocatable in cores", cpu, "0.3 of 3.5 cores")
	}
	mem := read(t, tab, "the memory requested", chromedp.Text(`#node-capacity tr[data-quantity="Memory"] .amount`))
	if mem != "0.19 of 7 GiB" {
		t.Errorf("the memory row says %q, want %q: requests and allocatable in one unit", mem, "0.19 of 7 GiB")
	}

	// The heartbeat gaps' y axis: from 0, up past the interval the node
	// keeps, so that milliseconds of jitter are a flat row of bars.
	labels := read(t, tab, "the heartbeat chart's y labels", evaluate[[]string](
		`[...document.querySelectorAll('[data-chart="Heartbeat gaps (s)"] .y-axis text')].map((e) => e.textContent)`))
	var ys []float64
	for _, l := range labels {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatalf("the heartbeat chart's y label %q is no number (labels %v)", l, labels)
		}
		ys = append(ys, v)
	}
	if len(ys) < 2 || ys[0] != 0 || ys[len(ys)-1] < interval.Seconds() {
		t.Errorf("the heartbeat chart's y axis reads %v, want it from 0 to at least the %s interval", labels, interval)
	}
	noOverlap := func(when string) {
		t.Helper()
		overlaps := read(t, tab, "measure the time labels "+when, evaluate[[]string](`(() => {
			const out = [];
			for (const chart of document.querySelectorAll('#node-charts .chart')) {
				const svg = chart.querySelector('svg').getBoundingClientRect();
				const boxes = [...chart.querySelectorAll('.x-axis text')].map((e) => ({ text: e.textContent, r: e.getBoundingClientRect() }))
					.sort((a, b) => a.r.left - b.r.left);
				if (boxes.length < 2) out.push(chart.dataset.chart + ': ' + boxes.length + ' time label(s)');
				boxes.forEach((b, i) => {
					if (b.r.left < svg.left || b.r.right > svg.right) out.push(chart.dataset.chart + ': ' + b.text + ' outside the chart');
					if (i > 0 && boxes[i - 1].r.right > b.r.left) out.push(chart.dataset.chart + ': ' + boxes[i - 1].text + ' overlaps ' + b.text);
				});
			}
			return out;
		})()`))
		if len(overlaps) > 0 {
			t.Errorf("time labels %s: %s", when, strings.Join(overlaps, "; "))
		}
	}
	noOverlap("in a wide window")
	screenshot(t, tab, "glance-node")

	browse(t, tab, "a narrow window", chromedp.EmulateViewport(480, 900), chromedp.Reload(), chromedp.WaitVisible(`#node-charts svg.plot`))
	width := read(t, tab, "the chart's width", evaluate[float64](`document.querySelector('#node-charts svg.plot').getBoundingClientRect().width`))
	if width > 480 {
		t.Errorf("in a 480-pixel window the charts are %.0f pixels wide", width)
	}
	noOverlap("in a narrow window")
	screenshot(t, tab, "glance-node-narrow")
	browse(t, tab, "a wide window again", chromedp.EmulateViewport(1400, 900))

	// The audit log: no heartbeat until asked, then heartbeats.
	browse(t, tab, "the audit log", chromedp.Navigate(srv.URL+"/ui/#/audit"),
		chromedp.WaitVisible(`tr.audit-event[data-type="NodeRegistered"]`))
	types := read(t, tab, "the types shown", evaluate[[]string](`[...document.querySelectorAll('tr.audit-event')].map((r) => r.dataset.type)`))
	for _, typ := range types {
		if typ == "HeartbeatRecorded" || typ == "LeaseRenewed" {
			t.Fatalf("the audit log opens with a %s among %v, want heartbeats hidden", typ, types)
		}
	}
	if summary := read(t, tab, "the page's summary", chromedp.Text(`#audit p.muted`)); !regexp.MustCompile(`heartbeats .*hidden`).MatchString(summary) {
		t.Errorf("the audit page says %q, want it to say heartbeats are hidden", summary)
	}
	screenshot(t, tab, "glance-audit")
	browse(t, tab, "show heartbeats", clickRedrawn("#show-heartbeats"), chromedp.WaitVisible(`tr.audit-event[data-type="HeartbeatRecorded"]`))
	screenshot(t, tab, "glance-audit-heartbeats")
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The web view's figures in BENCHMARKS.md, measured in a real headless
// Chromium against a real herd serve on this machine:
//
//	make bench-ui    (or: go test -run '^$' -bench WebView -benchtime 1x ./cmd/herd/)
//
// Times come from the browser's own performance timeline: the page marks
// herd:tiles-drawn (User Timing) in the frame after it drew the tiles,
// and long tasks (over 50 ms) are read from a PerformanceObserver.

// uiBenchNodes is the fleet of the overview's targets.
const uiBenchNodes = 10000

// BenchmarkWebViewOverview10kNodes: 10,000 kubelet-style nodes, each
// renewing its Lease every 10 s (1,000 heartbeats a second, every one a
// watch event of its node) from herd loadgen. Reported: the first render
// of the overview after the page is requested, the tab's memory (its
// renderer's proportional set size and its JavaScript heap), and the
// longest task on the page's main thread while the heartbeats stream in;
// then how long after herd marked a node that fell silent NotReady its
// tile turned, without a reload (herd's grace period is 20 s here, to
// wait less: the leases are renewed every 10 s).
func BenchmarkWebViewOverview10kNodes(b *testing.B) {
	srv := startServe(b, serveOptions{Args: []string{"--node-monitor-grace-period", "20s"}})
	bin := herdBinary(b)
	ctx, stop := context.WithCancel(context.Background())
	load := exec.CommandContext(ctx, bin, "loadgen", "--server", srv.URL, "--style", "kubelet", "--lease", //nolint:gosec // the herd binary this package built
		"--interval", "10s", "--status-every", "5m", "--nodes", strconv.Itoa(uiBenchNodes), "--connections", "64", "--duration", "10m")
	load.Env = childEnv()
	var loadOut syncBuffer
	load.Stdout, load.Stderr = &loadOut, &loadOut
	b.Cleanup(func() {
		if b.Failed() {
			b.Logf("herd loadgen:\n%s", loadOut.String())
		}
	})
	if err := load.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stop(); _ = load.Wait() })
	waitForNodes(b, srv.URL, uiBenchNodes)
	// One node of herd's own agent kind, to fall silent on cue.
	const silent = "bench-silent"
	body, _ := json.Marshal(nodeJSON(b, "agent-node.json", silent))
	register, _ := http.NewRequestWithContext(context.Background(), http.MethodPut, agentPath(srv.URL, silent)+"/registration", strings.NewReader(string(body)))
	register.Header.Set("Content-Type", "application/json")
	if resp, err := apiClient.Do(register); err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("register %s: %v", silent, err)
	} else {
		_ = resp.Body.Close()
	}
	beats := keepBeating(b, srv.URL, "", time.Second, silent)

	for range b.N {
		profile := b.TempDir()
		tab := newBrowser(b, chromedp.Flag("enable-precise-memory-info", true), chromedp.UserDataDir(profile))
		browse(b, tab, "open the overview", chromedp.Navigate(srv.URL+"/ui/"),
			waitFor(fmt.Sprintf(`Number(document.getElementById('tiles')?.dataset.shown) > %d`, uiBenchNodes)))
		first := read(b, tab, "the first render", evaluate[float64](`new Promise((done) => {
			const look = () => { const m = performance.getEntriesByName('herd:tiles-drawn'); m.length ? done(m[0].startTime) : setTimeout(look, 20); };
			look();
		})`))
		// Where the first render's time went: the list's request and
		// answer, as the browser's resource timing saw them.
		listed := read(b, tab, "the list's timing", evaluate[[]float64](`(() => {
			const e = performance.getEntriesByType('resource').find((r) => r.name.endsWith('/api/v1/nodes'));
			return e ? [e.startTime, e.responseStart, e.responseEnd, e.transferSize] : [0, 0, 0, 0];
		})()`))
		phases := read(b, tab, "the page's own marks", evaluate[string](`performance.getEntriesByType('mark').filter((m) => m.startTime <= performance.getEntriesByName('herd:tiles-drawn')[0].startTime).map((m) => m.name.replace('herd:', '') + ' ' + Math.round(m.startTime)).join(', ')`))
		browse(b, tab, "watch for long tasks", script(`window.herdLongTasks = [];
			new PerformanceObserver((l) => { for (const e of l.getEntries()) window.herdLongTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });`))
		// Thirty seconds of heartbeats streaming into the page.
		window := 30 * time.Second
		time.Sleep(window)
		var tasks [][2]float64
		raw := read(b, tab, "the long tasks", evaluate[string](`JSON.stringify(window.herdLongTasks)`))
		if err := json.Unmarshal([]byte(raw), &tasks); err != nil {
			b.Fatal(err)
		}
		longest := 0.0
		for _, t := range tasks {
			longest = max(longest, t[1])
		}
		events := read(b, tab, "the tiles' repaints", evaluate[float64](`performance.getEntriesByName('herd:tiles-drawn').length`))
		heap := read(b, tab, "the JavaScript heap", evaluate[float64](`performance.memory.usedJSHeapSize`))
		pss := rendererPSS(b, profile)
		screenshot(b, tab, "bench-overview-10k")

		beats.quiet.Store(silent, true)
		turned := turnedNotReady(b, tab, silent)
		marked := markedUnknown(b, srv.URL, silent)
		b.ReportMetric(float64(turned.Sub(marked).Milliseconds()), "turned-after-ms")
		b.Logf("%s turned NotReady on the page %s after herd marked it", silent, turned.Sub(marked).Round(time.Millisecond))
		b.ReportMetric(first, "first-render-ms")
		b.ReportMetric(listed[2], "list-received-ms")
		b.ReportMetric(pss/(1<<20), "renderer-PSS-MB")
		b.ReportMetric(heap/(1<<20), "JS-heap-MB")
		b.ReportMetric(longest, "longest-task-ms")
		b.ReportMetric(float64(len(tasks)), "long-tasks")
		b.Logf("overview of %d nodes: drawn %.0f ms after the page was requested (the list asked at %.0f ms, its first byte at %.0f, its last at %.0f, %.1f MB; then %s); "+
			"renderer PSS %.0f MB, JS heap %.0f MB; over %s of heartbeats: %d long tasks (> 50 ms), the longest %.0f ms; %.0f full draws",
			uiBenchNodes, first, listed[0], listed[1], listed[2], listed[3]/(1<<20), phases, pss/(1<<20), heap/(1<<20), window, len(tasks), longest, events)
	}
}

// waitForNodes waits until herd lists n nodes.
func waitForNodes(b testing.TB, base string, n int) {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, base+"/api/v1/nodes", nil)
		if resp, err := apiClient.Do(req); err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&list)
			_ = resp.Body.Close()
			if len(list.Items) >= n {
				return
			}
		}
		time.Sleep(2 * time.Second)
	}
	b.Fatalf("herd did not list %d nodes within 5 minutes", n)
}

// rendererPSS is the proportional set size, in bytes, of the renderer
// processes of the Chromium whose profile is dir: what the tab costs the
// machine, its share of shared pages included.
func rendererPSS(b testing.TB, dir string) float64 {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	total := 0.0
	for _, p := range procs {
		cmd, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := string(cmd)
		if !strings.Contains(args, "--type=renderer") || !strings.Contains(args, dir) {
			continue
		}
		f, err := os.Open(filepath.Join(filepath.Dir(p), "smaps_rollup"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if kb, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
				v, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 64)
				total += v * 1024
			}
		}
		_ = f.Close()
	}
	if total == 0 {
		b.Fatal("no renderer process of the benchmark's Chromium found")
	}
	return total
}

// BenchmarkWebViewWeekAgo: the overview of a fleet of 10,000 nodes with
// ten days of history (the log `make bench-past` writes, in
// HERD_WEEK_LOG_DIR), the time control released at a week ago: reported
// is how long after the release the fleet as it was is on screen.
func BenchmarkWebViewWeekAgo(b *testing.B) {
	dir := os.Getenv("HERD_WEEK_LOG_DIR")
	if dir == "" {
		b.Skip("HERD_WEEK_LOG_DIR names no log (make bench-past writes one)")
	}
	srv := startServe(b, serveOptions{DataDir: dir, Args: []string{"--reconcilers=", "--heartbeat-retention=0"}})
	for range b.N {
		tab := newBrowser(b)
		browse(b, tab, "open the overview", chromedp.Navigate(srv.URL+"/ui/"),
			waitFor(`Number(document.getElementById('tiles')?.dataset.shown) > 0 && performance.getEntriesByName('herd:tiles-drawn').length > 0`))
		took := read(b, tab, "the time control released at a week ago", evaluate[float64](`new Promise((done) => {
			const r = document.getElementById('asof-range'), oldest = +r.dataset.oldest, weekAgo = Date.now() - 7 * 86400e3;
			r.value = String(Math.round((weekAgo - oldest) / (Date.now() - oldest) * 1000));
			const released = performance.now();
			window.herdReleased = released;
			r.dispatchEvent(new Event('input'));
			r.dispatchEvent(new Event('change'));
			const look = () => {
				const m = performance.getEntriesByName('herd:tiles-drawn').find((e) => e.startTime > released && e.detail.at);
				m ? done(m.startTime - released) : setTimeout(look, 10);
			};
			look();
		})`))
		listed := read(b, tab, "the past list's timing", evaluate[[]float64](`(() => {
			const e = performance.getEntriesByType('resource').find((r) => r.name.includes('/api/v1/nodes?asOf='));
			return e ? [e.responseStart - window.herdReleased, e.responseEnd - window.herdReleased, e.transferSize] : [0, 0, 0];
		})()`))
		shown := read(b, tab, "the nodes shown", evaluate[float64](`Number(document.getElementById('tiles').dataset.shown)`))
		screenshot(b, tab, "bench-week-ago")
		b.ReportMetric(took, "week-ago-drawn-ms")
		b.Logf("the fleet a week ago (%.0f nodes) drawn %.0f ms after the time control was released (herd's answer began at %.0f ms and ended at %.0f, %.1f MB)",
			shown, took, listed[0], listed[1], listed[2]/(1<<20))
	}
}

// turnedNotReady waits (a grace period and more) until the node's tile
// says NotReady, and returns when, by the browser's clock.
func turnedNotReady(b testing.TB, tab context.Context, node string) time.Time {
	ctx, cancel := context.WithTimeout(tab, 2*time.Minute)
	defer cancel()
	ms, err := chromedp.Run(ctx, evaluate[float64](fmt.Sprintf(`new Promise((done) => {
		const look = () => (%s) ? done(Date.now()) : setTimeout(look, 5);
		look();
	})`, tileReady(node, "NotReady"))))
	if err != nil {
		b.Fatalf("%s's tile turning NotReady: %v", node, err)
	}
	return time.UnixMilli(int64(ms))
}

// markedUnknown is when herd recorded the node's Ready as Unknown: the
// first event of its explanation's chain.
func markedUnknown(b testing.TB, base, node string) time.Time {
	var why struct {
		Items []struct {
			What  string `json:"what"`
			Chain []struct {
				RecordedAt time.Time `json:"recordedAt"`
			} `json:"chain"`
		} `json:"items"`
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, base+"/apis/herd.dev/v1/nodes/"+node+"/explanation", nil)
	resp, err := apiClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&why); err != nil {
		b.Fatal(err)
	}
	for _, it := range why.Items {
		if strings.HasPrefix(it.What, "Ready is Unknown") && len(it.Chain) > 0 {
			return it.Chain[0].RecordedAt
		}
	}
	b.Fatalf("herd does not explain %s as Ready Unknown: %+v", node, why.Items)
	return time.Time{}
}

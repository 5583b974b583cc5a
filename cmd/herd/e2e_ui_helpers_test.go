package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The web view's tests drive a real headless Chromium (Debian's chromium
// package, which `make test` installs) through the DevTools protocol
// against a real herd serve. Without a Chromium they skip, unless
// HERD_REQUIRE_BROWSER=1 (as `make test` sets) makes that a failure.

// browserWait bounds each wait for the page: generous for a loaded
// two-core machine, and over as soon as the awaited thing shows.
const browserWait = 30 * time.Second

// chromiumPath is the browser the tests drive.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("HERD_REQUIRE_BROWSER") == "1" {
		t.Fatal("no Chromium on PATH, and HERD_REQUIRE_BROWSER=1: `make browser` installs Debian's chromium")
	}
	t.Skip("no Chromium on PATH (make browser installs it)")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile (and any
// further flags) and returns the context of its first tab; both end with
// the test.
func newBrowser(t testing.TB, flags ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	herdBinary(t) // skipped with -short, as every process-level test
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // the tests may run as root, where Chromium's sandbox refuses to start
		chromedp.WindowSize(1400, 900),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	opts = append(opts, flags...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// browse runs steps in the tab within browserWait, failing the test
// with what was being done (and a screenshot of the page then).
func browse(t testing.TB, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		failBrowsing(t, tab, what, err)
	}
}

// read runs one action that answers a value, within browserWait.
func read[T any](t testing.TB, tab context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		failBrowsing(t, tab, what, err)
	}
	return v
}

func failBrowsing(t testing.TB, tab context.Context, what string, err error) {
	t.Helper()
	sctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	if shot, serr := chromedp.Run(sctx, chromedp.CaptureScreenshot()); serr == nil {
		saveArtefact(t, "failed-"+t.Name(), shot)
	}
	t.Fatalf("%s: %v", what, err)
}

// script is a script run for its effect, as a step.
func script(js string) chromedp.Action[chromedp.Void] {
	return discard(chromedp.Evaluate[any](js))
}

// evaluate is a script's value, a promise awaited.
func evaluate[T any](script string) chromedp.Action[T] {
	return chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise)
}

// waitFor polls a script in the page until it returns true, for as long
// as the caller's context allows: chromedp's own 30-second limit on a
// poll is turned off, so a wait given longer (a CronJob's first minute)
// is not cut short by it.
func waitFor(script string) chromedp.Action[chromedp.Void] {
	return discard(chromedp.Poll[bool](script, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0)))
}

// clickRedrawn clicks sel as a user would, again when the page redrew
// the element between finding it and clicking it (Chromium answers "Could
// not find node with given id"): the pages redraw their tiles and rows as
// the fleet or the moment shown changes, and a click on the element drawn
// a moment later is the same click to whoever uses the page. Every click
// of the web view's tests goes through it.
func clickRedrawn(sel string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for {
			_, err := chromedp.Click(sel)(ctx, tg)
			if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "Could not find node with given id") {
				return chromedp.Void{}, err
			}
		}
	}
}

// discard makes an action that answers a value a step.
func discard[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, tg)
		return chromedp.Void{}, err
	}
}

// artefactDir is where the tests leave screenshots: HERD_ARTIFACTS, or
// .artifacts/ui at the top of the checkout.
func artefactDir(t testing.TB) string {
	dir := os.Getenv("HERD_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", ".artifacts", "ui")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// saveArtefact writes a PNG screenshot as a test artefact.
func saveArtefact(t testing.TB, name string, png []byte) {
	path := filepath.Join(artefactDir(t), filepath.Base(name)+".png")
	if err := os.WriteFile(path, png, 0o600); err != nil {
		t.Errorf("save screenshot: %v", err)
		return
	}
	t.Logf("screenshot: %s", path)
}

// screenshot captures the tab as an artefact.
func screenshot(t testing.TB, tab context.Context, name string) {
	t.Helper()
	saveArtefact(t, name, read(t, tab, "screenshot "+name, chromedp.FullScreenshot(100)))
}

// heartbeats keeps agent nodes reporting, as their agents would, until
// the test ends; a node put in quiet stops.
type heartbeats struct {
	quiet sync.Map
	beats atomic.Int64
}

// keepBeating posts a heartbeat for each node every interval, with the
// token when one is given, its load drifting so that the charts have a
// shape.
func keepBeating(t testing.TB, base, token string, interval time.Duration, nodes ...string) *heartbeats {
	h := &heartbeats{}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() })
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := 0; ; i++ {
			for _, n := range nodes {
				if _, quiet := h.quiet.Load(n); quiet {
					continue
				}
				m := healthyMetrics()
				m.Load1 = 0.5 + float64(i%20)/10
				m.MemoryAvailableBytes = 4*gib - int64(i%10)*gib/10
				body, _ := json.Marshal(heartbeatBody(m))
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, agentPath(base, n)+"/heartbeat", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := apiClient.Do(req)
				if err != nil {
					continue // herd is stopping with the test
				}
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					h.beats.Add(1)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	return h
}

// tileReady is a script that is true when the node's tile on the
// overview says ready ("Ready" or "NotReady"): its DOM tile, or in a big
// fleet its square on a group's canvas.
func tileReady(node, ready string) string {
	return fmt.Sprintf(`(() => {
		const el = document.querySelector('.tile[data-node=%[1]q]');
		if (el) return el.dataset.ready === %[2]q;
		for (const c of document.querySelectorAll('canvas.tile-map')) {
			const n = c.tileMap.shown(%[1]q);
			if (n) return n.ready === %[2]q;
		}
		return false;
	})()`, node, ready)
}

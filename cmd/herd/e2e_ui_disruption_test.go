package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestWebViewSaysWhatADisruptionDoes: three of four nodes fall silent
// together, a disruption. With herd taking a fleet of more than two nodes
// for a large one, the overview's banner says that herd slows the
// NoExecute evictions to the secondary rate, as the disruption's event
// records it, rather than that it stops them.
func TestWebViewSaysWhatADisruptionDoes(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	srv := startServe(t, serveOptions{Args: []string{
		"--node-monitor-period", "100ms", "--node-monitor-grace-period", "2s", "--node-startup-grace-period", "2s",
		"--large-fleet-size-threshold", "2",
	}})
	nodes := []string{"web-01", "web-02", "web-03", "web-04"}
	for _, n := range nodes {
		registerAgent(t, srv.URL, n)
		heartbeat(t, srv.URL, n, healthyMetrics())
	}
	keepBeating(t, srv.URL, "", 250*time.Millisecond, "web-04")

	browse(t, tab, "the overview", chromedp.Navigate(srv.URL+"/ui/"))
	browse(t, tab, "the disruption's banner", waitFor(`(document.querySelector('#disruption .banner')?.textContent || '').includes('slows')`))
	banner := read(t, tab, "the banner", evaluate[string](`document.querySelector('#disruption .banner').textContent`))
	for _, want := range []string{"3 of 4 nodes unreachable", "herd slows NoExecute evictions to 0.01 nodes a second, suspecting itself cut off"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner reads %q: want %q in it", banner, want)
		}
	}
	screenshot(t, tab, "disruption-slowed")
}

package main

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestWebViewPlaysTheOverviewAtTheChosenSpeed: ten minutes of history of
// three nodes (node-0002 cordoned two minutes in, uncordoned a minute
// later), played on the overview at 60× from half a minute in. Each step
// moves the moment shown by the speed's worth of history (a minute a second);
// node-0002's tile follows — Ready, then Cordoned only once the moment
// shown has passed its cordoning — and the page follows in place: the
// overview is not built again at each step, and each moment's list is
// read in the page's worker, which hands the page, after the first, only
// the nodes that changed.
func TestWebViewPlaysTheOverviewAtTheChosenSpeed(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	dir := t.TempDir()
	begin := writePlaybackLog(t, dir, 3, 10*time.Minute)
	srv := startServe(t, serveOptions{DataDir: dir, Args: []string{"--reconcilers=", "--heartbeat-retention=0"}})
	// The page keeps milliseconds; node-0002 is cordoned two minutes in,
	// give or take its place in the round.
	from := begin.Add(30 * time.Second).Truncate(time.Millisecond).UTC()
	cordoned := begin.Add(2 * time.Minute)

	browse(t, tab, "the overview half a minute in", chromedp.Navigate(srv.URL+"/ui/#/?at="+from.Format(time.RFC3339Nano)),
		chromedp.WaitVisible(`.tile[data-node="node-0002"][data-state="Ready"]`))
	// What the page shows, as it changes: each moment shown with
	// node-0002's state then, and a mark on the tiles' box that a page
	// built again would not have.
	browse(t, tab, "record the moments and the tile", script(`(() => {
		window.herdSeen = [];
		const at = () => new URLSearchParams(location.hash.split('?')[1] || '').get('at') || '';
		const look = () => {
			const el = document.querySelector('.tile[data-node="node-0002"]');
			const s = [at(), el ? el.dataset.state : '', document.getElementById('tiles')?.dataset.probe || ''];
			const last = window.herdSeen[window.herdSeen.length - 1];
			if (!last || last.join() !== s.join()) window.herdSeen.push(s);
		};
		document.getElementById('tiles').dataset.probe = 'kept';
		new MutationObserver(look).observe(document.getElementById('app'), { subtree: true, childList: true, attributes: true });
		setInterval(look, 20);
	})()`))
	browse(t, tab, "play at 60×", chromedp.SetValue("#speed", "60"), clickRedrawn("#play"))
	browse(t, tab, "node-0002 cordoned on the way", waitFor(`window.herdSeen.some((s) => s[1] === 'Cordoned')`))
	browse(t, tab, "pause", clickRedrawn("#play"), waitFor(`document.getElementById('play').textContent === '▶'`))
	screenshot(t, tab, "playback-overview-60x")

	var seen [][3]string
	if err := json.Unmarshal([]byte(read(t, tab, "what the page showed", evaluate[string](`JSON.stringify(window.herdSeen)`))), &seen); err != nil {
		t.Fatal(err)
	}
	// node-0002's tile leads to its page at the moment shown, not at the
	// one the tile was drawn at.
	atShown := `new URLSearchParams(location.hash.split('?')[1] || '').get('at') || ''`
	paused := read(t, tab, "the moment shown when paused", evaluate[string](atShown))
	browse(t, tab, "open node-0002 from its tile", clickRedrawn(`.tile[data-node="node-0002"]`),
		waitFor(`location.hash.startsWith('#/nodes/node-0002')`))
	if got := read(t, tab, "the moment of node-0002's page", evaluate[string](atShown)); got != paused {
		t.Errorf("node-0002's tile led to its page at %q, want the moment shown, %q", got, paused)
	}

	prev := from
	steps := 0
	for _, s := range seen {
		at, err := time.Parse(time.RFC3339Nano, s[0])
		if err != nil {
			t.Fatalf("the page showed %q during playback: want a moment of the past (all: %v)", s[0], seen)
		}
		if !at.Equal(prev) {
			if d := at.Sub(prev); d != time.Minute {
				t.Errorf("playback at 60× stepped from %s to %s (%s): want a minute a step", prev.Format(time.RFC3339Nano), s[0], d)
			}
			prev = at
			steps++
		}
		if s[1] == "Cordoned" && at.Before(cordoned) {
			t.Errorf("node-0002 shown cordoned at %s, before it was (%s)", s[0], cordoned.Format(time.RFC3339Nano))
		}
		if s[2] != "kept" {
			t.Errorf("at %s the overview had been built again: playback should follow in place", s[0])
			break
		}
	}
	// Each step's list of the fleet was read off the page's main thread.
	if via := read(t, tab, "where the lists were read", evaluate[string](`[...new Set(performance.getEntriesByName('herd:moved').map((m) => m.detail.via))].join()`)); via != "worker" {
		t.Errorf("playback's lists were read in %q, want the worker alone", via)
	}
	// After the first, each step's list came from the worker as what
	// differs from the one before, not whole: the page copies and
	// compares the few nodes that changed, not the fleet.
	if whole := read(t, tab, "which lists came whole", evaluate[[]bool](`performance.getEntriesByName('herd:moved').map((m) => m.detail.whole)`)); len(whole) < 2 || slices.Contains(whole[1:], true) || !whole[0] {
		t.Errorf("playback's lists came whole at each move: %v, want the first alone whole, the others as what changed", whole)
	}
	if steps < 2 {
		t.Errorf("playback took %d steps before node-0002 showed cordoned: want 2 or more (a minute each from %s to past %s); seen %v", steps, from.Format(time.RFC3339), cordoned.Format(time.RFC3339), seen)
	}
}

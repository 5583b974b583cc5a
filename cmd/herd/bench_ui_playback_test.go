package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// playbackNodes and playbackSpan are the fleet and the history the
// playback benchmark plays: the operators' target is an hour of a
// 1,000-node fleet at 60× without a long task over 50 ms.
const (
	playbackNodes = 1000
	playbackSpan  = time.Hour
	playbackEvery = 10 * time.Second // each node's heartbeat
)

// BenchmarkWebViewPlayback1kNodes: an hour of 1,000 nodes heartbeating
// every 10 s (360,000 heartbeats, with nodes going under load and back,
// and one cordoned and uncordoned each minute: changes the tiles show),
// written into a fresh log, served by herd; the overview is opened at the
// hour's start and played at 60× for 40 s of wall time. Reported, from the
// browser's own timeline: the long tasks (over 50 ms, PerformanceObserver
// 'longtask') — how many and the longest — the frames (requestAnimationFrame
// callbacks) and how many missed the 16.7 ms budget by more than one frame,
// the worst gap between two frames, and how far playback moved.
//
//	go test -run '^$' -bench WebViewPlayback -benchtime 1x -v ./cmd/herd/
func BenchmarkWebViewPlayback1kNodes(b *testing.B) {
	dir := b.TempDir()
	begin := writePlaybackLog(b, dir, playbackNodes, playbackSpan)
	srv := startServe(b, serveOptions{DataDir: dir, Args: []string{"--reconcilers=", "--heartbeat-retention=0"}})
	for range b.N {
		tab := newBrowser(b)
		at := begin.Add(time.Minute).UTC().Format(time.RFC3339Nano)
		browse(b, tab, "open the overview at the hour's start", chromedp.Navigate(srv.URL+"/ui/#/?at="+at),
			waitFor(fmt.Sprintf(`Number(document.getElementById('tiles')?.dataset.shown) === %d`, playbackNodes)))
		browse(b, tab, "watch long tasks and frames", script(`window.herdLongTasks = []; window.herdFrames = [];
			new PerformanceObserver((l) => { for (const e of l.getEntries()) window.herdLongTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
			const frame = (t) => { window.herdFrames.push(t); requestAnimationFrame(frame); };
			requestAnimationFrame(frame);`+watchLongFrames))
		browse(b, tab, "play at 60×", chromedp.SetValue("#speed", "60"), clickRedrawn("#play"))
		window := 40 * time.Second
		time.Sleep(window)
		var got struct {
			Tasks  [][2]float64 `json:"tasks"`
			Frames []float64    `json:"frames"`
			At     string       `json:"at"`
			Draws  int          `json:"draws"`
			Moves  [][4]float64 `json:"moves"` // changed, list read, compared, repainted
			Lists  [][3]float64 `json:"lists"` // asked, answer's first and last byte
			Bytes  float64      `json:"bytes"`
			Via    []string     `json:"via"` // where each move's list was read: the page or its worker
		}
		raw := read(b, tab, "the timeline", evaluate[string](`JSON.stringify({tasks: window.herdLongTasks, frames: window.herdFrames,
			at: new URLSearchParams(location.hash.split('?')[1] || '').get('at') || '',
			draws: performance.getEntriesByName('herd:tiles-drawn').length,
			via: [...new Set(performance.getEntriesByName('herd:moved').map((m) => m.detail.via))],
			moves: performance.getEntriesByName('herd:moved').map((m) => [m.detail.changed, m.detail.parsed, m.detail.compared, m.detail.painted]),
			lists: performance.getEntriesByType('resource').filter((r) => r.name.includes('/api/v1/nodes?asOf=')).map((r) => [r.startTime, r.responseStart, r.responseEnd]),
			bytes: Math.max(0, ...performance.getEntriesByType('resource').filter((r) => r.name.includes('/api/v1/nodes?asOf=')).map((r) => r.decodedBodySize))})`))
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			b.Fatal(err)
		}
		logLongFrames(b, tab)
		screenshot(b, tab, "bench-playback-1k")
		longest := 0.0
		for _, t := range got.Tasks {
			longest = max(longest, t[1])
		}
		worst, missed := 0.0, 0
		for i := 1; i < len(got.Frames); i++ {
			gap := got.Frames[i] - got.Frames[i-1]
			worst = max(worst, gap)
			if gap > 2*1000.0/60 {
				missed++
			}
		}
		// Where the long tasks come from: those that began as a list's
		// answer ended (its JSON parsed) or held its comparison and
		// repaint.
		compare, paint, serve := 0.0, 0.0, 0.0
		for _, m := range got.Moves {
			compare, paint = max(compare, m[2]-m[1]), max(paint, m[3]-m[2])
		}
		for _, l := range got.Lists {
			serve = max(serve, l[2]-l[0])
		}
		for _, t := range got.Tasks {
			cause := ""
			for _, l := range got.Lists {
				if l[2] >= t[0]-1 && l[2] <= t[0]+t[1] {
					cause = "a list's answer ended in it (JSON parse)"
				}
			}
			for _, m := range got.Moves {
				if m[1] >= t[0] && m[1] <= t[0]+t[1] {
					cause += fmt.Sprintf("; a move's comparison (%.0f ms) and repaint (%.0f ms, %.0f nodes changed) in it", m[2]-m[1], m[3]-m[2], m[0])
				}
			}
			if cause == "" {
				cause = "no list nor move in it"
			}
			b.Logf("long task at %.0f ms, %.0f ms: %s", t[0], t[1], strings.TrimPrefix(cause, "; "))
		}
		b.Logf("%d moves, their lists read in the %s: the longest comparison %.0f ms, the longest repaint %.0f ms; %d lists of the past read by the page (%.1f MB decoded), the slowest answered in %.0f ms",
			len(got.Moves), strings.Join(got.Via, " and the "), compare, paint, len(got.Lists), got.Bytes/(1<<20), serve)
		reached, err := time.Parse(time.RFC3339Nano, got.At)
		if err != nil {
			b.Fatalf("playback shows %q after %s: want a moment of the past", got.At, window)
		}
		moved := reached.Sub(begin.Add(time.Minute))
		b.ReportMetric(float64(len(got.Tasks)), "long-tasks")
		b.ReportMetric(longest, "longest-task-ms")
		b.ReportMetric(worst, "worst-frame-gap-ms")
		b.ReportMetric(float64(missed), "frames-over-budget")
		b.ReportMetric(moved.Seconds()/window.Seconds(), "history-s-per-s")
		b.Logf("an hour of %d nodes played at 60× for %s: history moved %s (%d draws); %d long tasks (> 50 ms), the longest %.0f ms; "+
			"%d frames, %d of them more than a frame (16.7 ms) late, the worst gap %.0f ms",
			playbackNodes, window, moved.Round(time.Second), got.Draws, len(got.Tasks), longest, len(got.Frames), missed, worst)
	}
}

// writePlaybackLog writes span of the history of a fleet of nodes into
// dir's log, in time order, ending a minute ago, and builds its views and
// snapshots as herd replay would; it returns when the history begins.
// Every node registers at the start and reports every 10 s; node i is
// under load (HighLoad: its tile says Pressure) for five minutes once, at
// a time of its own; node m is cordoned m minutes in, and uncordoned a
// minute later.
func writePlaybackLog(b testing.TB, dir string, nodes int, span time.Duration) time.Time {
	return writePlaybackHistory(b, dir, nodes, 0, span)
}

// writePlaybackHistory is writePlaybackLog with pods too: pod j is
// created, bound to node j%nodes, at its own moment spread evenly over
// the span, so that the pods page changes at each step of playback.
func writePlaybackHistory(b testing.TB, dir string, nodes, pods int, span time.Duration) time.Time {
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(dir, events.DatabaseFileName)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		b.Fatal(err)
	}
	const cols = `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata) VALUES `
	rounds := int(span / playbackEvery)
	end := time.Now().Add(-time.Minute)
	begin := end.Add(-span)
	type node struct {
		name, stream, md string
		n                domain.Node
		version          int64
	}
	fleet := make([]*node, nodes)
	for i := range fleet {
		name := fmt.Sprintf("node-%04d", i)
		fleet[i] = &node{name: name, stream: domain.NodeStream(name), md: fmt.Sprintf(`{"actor":"node/%s","source":"agent"}`, name)}
	}
	var args []any
	var tx *sql.Tx
	flush := func() {
		for len(args) > 0 {
			n := min(len(args)/8, 100)
			q := cols + strings.TrimSuffix(strings.Repeat(`(?,?,?,?,?,?,CAST(? AS TEXT),?),`, n), ",")
			if _, err := tx.ExecContext(ctx, q, args[:8*n]...); err != nil {
				b.Fatal(err)
			}
			args = args[8*n:]
		}
	}
	decide := func(nd *node, cmd domain.NodeCommand, at time.Time) {
		evs, err := domain.DecideNode(nd.n, cmd, at)
		if err != nil {
			b.Fatalf("%T on %s: %v", cmd, nd.name, err)
		}
		for _, ev := range evs {
			nd.n = domain.EvolveNode(nd.n, ev)
			payload, err := json.Marshal(ev)
			if err != nil {
				b.Fatal(err)
			}
			nd.version++
			args = append(args, uuid.Must(uuid.NewV7()).String(), nd.stream, nd.version, ev.EventType(),
				domain.SchemaVersion(ev.EventType()), at.UnixNano(), payload, nd.md)
		}
	}
	for r := range rounds {
		if tx, err = store.DB().BeginTx(ctx, nil); err != nil {
			b.Fatal(err)
		}
		for i, nd := range fleet {
			at := begin.Add(time.Duration(r)*playbackEvery + time.Duration(i)*playbackEvery/time.Duration(nodes))
			if r == 0 {
				decide(nd, domain.RegisterNode{Registration: domain.Registration{
					Name: nd.name, UID: "uid-" + nd.name, Kind: domain.KindLinux,
					Labels:   map[string]string{"zone": fmt.Sprintf("z%d", i%4)},
					Capacity: domain.ResourceList{"cpu": 8000, "memory": 32 << 30, "pods": 110},
				}}, at)
				continue
			}
			load := 1.0
			if hot := (i * 37) % (rounds - 30); r >= hot && r < hot+30 {
				load = 40
			}
			decide(nd, domain.RecordHeartbeat{Metrics: &domain.Metrics{
				CPUCount: 8, Load1: load, Load5: load, Load15: 1,
				MemoryTotalBytes: 32 << 30, MemoryAvailableBytes: int64(12+(r+i)%12) << 30,
				DiskTotalBytes: 500 << 30, DiskAvailableBytes: 200 << 30,
				PIDsMax: 4194304, PIDsCurrent: int64(300 + (r+i)%200),
			}}, at)
			if r%6 == 0 && i == (r/6)%nodes {
				decide(nd, domain.SetNodeSchedulable{Unschedulable: true}, at)
			}
			if r%6 == 0 && r >= 6 && i == (r/6-1)%nodes {
				decide(nd, domain.SetNodeSchedulable{Unschedulable: false}, at)
			}
		}
		// The pods created in this round, each on its node.
		for j := (r - 1) * pods / rounds; r > 0 && j < r*pods/rounds; j++ {
			at := begin.Add(time.Duration(r)*playbackEvery + time.Duration(j%10)*time.Millisecond)
			name := fmt.Sprintf("app-%05d", j)
			evs, err := domain.DecidePodSequence(domain.Pod{}, at,
				domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Labels: map[string]string{"app": fmt.Sprintf("app-%d", j%20)},
					Spec: domain.PodSpec{Containers: []domain.Container{{Name: "app", Image: "busybox", Requests: domain.ResourceList{"cpu": 100, "memory": 64 << 20}}}}},
				domain.BindPod{NodeName: fleet[j%nodes].name})
			if err != nil {
				b.Fatalf("pod %s: %v", name, err)
			}
			for v, ev := range evs {
				payload, err := json.Marshal(ev)
				if err != nil {
					b.Fatal(err)
				}
				args = append(args, uuid.Must(uuid.NewV7()).String(), domain.PodStream("default", name), int64(v+1), ev.EventType(),
					domain.SchemaVersion(ev.EventType()), at.UnixNano(), payload, `{"actor":"system:anonymous","source":"api"}`)
			}
		}
		flush()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := projections.Rebuild(ctx, store.Log(), projections.RebuildOptions{Snapshots: projections.SnapshotPolicy{Every: 100, Interval: 5 * time.Minute}}); err != nil {
		b.Fatal(err)
	}
	return begin
}

// playbackPods is how many pods the pages' playback benchmark creates
// over the hour: about 33 a minute, so that each step at 60× lists new ones.
const playbackPods = 2000

// BenchmarkWebViewPlaybackPages1kNodes: the same hour of 1,000 nodes,
// with 2,000 pods created over it, played at 60× for 40 s of wall time on
// a node's page (node-0002, cordoned and uncordoned in the hour) and on
// the pods page, each followed in place. Reported per page, from the
// browser's own timeline: the long tasks (over 50 ms) — how many and the
// longest — how many moves the page followed, and how far playback moved.
//
//	go test -run '^$' -bench WebViewPlaybackPages -benchtime 1x -v ./cmd/herd/
func BenchmarkWebViewPlaybackPages1kNodes(b *testing.B) {
	dir := b.TempDir()
	begin := writePlaybackHistory(b, dir, playbackNodes, playbackPods, playbackSpan)
	srv := startServe(b, serveOptions{DataDir: dir, Args: []string{"--reconcilers=", "--heartbeat-retention=0"}})
	from := begin.Add(time.Minute).UTC()
	at := url.Values{"at": {from.Format(time.RFC3339Nano)}}.Encode()
	pages := []struct {
		name, path, ready, moved string
	}{
		{"node", "#/nodes/node-0002?" + at, `document.getElementById('agent-state') !== null && document.querySelector('#node-timeline li') !== null`, "herd:node-moved"},
		{"pods", "#/pods?" + at, `/^[1-9][0-9]* of /.test(document.getElementById('pod-shown')?.textContent || '')`, "herd:moved"},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			for range b.N {
				tab := newBrowser(b)
				browse(b, tab, "open the "+p.name+" page at the hour's start", chromedp.Navigate(srv.URL+"/ui/"+p.path), waitFor(p.ready))
				browse(b, tab, "watch long tasks", script(`window.herdLongTasks = []; document.getElementById('app').firstElementChild.dataset.probe = 'kept';
					new PerformanceObserver((l) => { for (const e of l.getEntries()) window.herdLongTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
					`+watchLongFrames))
				browse(b, tab, "play at 60×", chromedp.SetValue("#speed", "60"), clickRedrawn("#play"))
				window := 40 * time.Second
				time.Sleep(window)
				var got struct {
					Tasks [][2]float64 `json:"tasks"`
					At    string       `json:"at"`
					Moves int          `json:"moves"`
					Kept  bool         `json:"kept"`
					Steps [][3]float64 `json:"steps"` // a list's move: read, compared, repainted
				}
				raw := read(b, tab, "the timeline", evaluate[string](fmt.Sprintf(`JSON.stringify({tasks: window.herdLongTasks,
					at: new URLSearchParams(location.hash.split('?')[1] || '').get('at') || '',
					moves: performance.getEntriesByName(%q).length,
					kept: document.getElementById('app').firstElementChild?.dataset.probe === 'kept',
					steps: performance.getEntriesByName('herd:moved').map((m) => [m.detail.parsed, m.detail.compared, m.detail.painted])})`, p.moved)))
				if err := json.Unmarshal([]byte(raw), &got); err != nil {
					b.Fatal(err)
				}
				logLongFrames(b, tab)
				screenshot(b, tab, "bench-playback-1k-"+p.name)
				if len(got.Steps) > 0 {
					compare, paint := 0.0, 0.0
					for _, m := range got.Steps {
						compare, paint = max(compare, m[1]-m[0]), max(paint, m[2]-m[1])
					}
					b.Logf("the %s page's %d moves of its list: the longest comparison %.0f ms, the longest repaint %.0f ms", p.name, len(got.Steps), compare, paint)
				}
				longest := 0.0
				for _, t := range got.Tasks {
					longest = max(longest, t[1])
				}
				reached, err := time.Parse(time.RFC3339Nano, got.At)
				if err != nil {
					b.Fatalf("playback shows %q after %s: want a moment of the past", got.At, window)
				}
				if !got.Kept {
					b.Errorf("the %s page was built again during playback: it should follow in place", p.name)
				}
				moved := reached.Sub(from)
				b.ReportMetric(float64(len(got.Tasks)), "long-tasks")
				b.ReportMetric(longest, "longest-task-ms")
				b.ReportMetric(float64(got.Moves), "moves")
				b.ReportMetric(moved.Seconds()/window.Seconds(), "history-s-per-s")
				b.Logf("the %s page, an hour of %d nodes and %d pods played at 60× for %s: history moved %s, %d moves followed in place; %d long tasks (> 50 ms), the longest %.0f ms",
					p.name, playbackNodes, playbackPods, window, moved.Round(time.Second), got.Moves, len(got.Tasks), longest)
			}
		})
	}
}

// watchLongFrames, run in the page, keeps each animation frame longer
// than 50 ms (the Long Animation Frames API) for logLongFrames.
const watchLongFrames = `
	window.herdLongFrames = [];
	new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.duration > 50) window.herdLongFrames.push(e); }).observe({ type: 'long-animation-frame' });`

// logLongFrames logs what the browser says each long animation frame
// (over 50 ms, the Long Animation Frames API) held: how long went to
// scripts — each named by the function and source that ran, and how it
// was called (a worker's message, a timer, a promise) — how long to
// style and layout after them, and how long the frame waited to render.
// It is how a long task is attributed to the page's code.
func logLongFrames(b *testing.B, tab context.Context) {
	b.Helper()
	raw := read(b, tab, "the long animation frames", evaluate[string](`JSON.stringify((window.herdLongFrames || []).map((f) => ({
		start: f.startTime, duration: f.duration, blocking: f.blockingDuration,
		render: f.renderStart ? f.startTime + f.duration - f.renderStart : 0,
		style: f.styleAndLayoutStart ? f.startTime + f.duration - f.styleAndLayoutStart : 0,
		scripts: f.scripts.map((s) => ({ invoker: s.invoker, type: s.invokerType, fn: s.sourceFunctionName, src: (s.sourceURL || '').split('/').pop() + ':' + s.sourceCharPosition,
			duration: s.duration, layout: s.forcedStyleAndLayoutDuration }))})))`))
	var frames []struct {
		Start, Duration, Blocking, Render, Style float64
		Scripts                                  []struct {
			Invoker, Type, Fn, Src string
			Duration, Layout       float64
		}
	}
	if err := json.Unmarshal([]byte(raw), &frames); err != nil {
		b.Fatal(err)
	}
	for _, f := range frames {
		var parts []string
		for _, s := range f.Scripts {
			parts = append(parts, fmt.Sprintf("%s %s (%s %s) %.0f ms, %.0f ms of it forced style/layout", s.Fn, s.Src, s.Type, s.Invoker, s.Duration, s.Layout))
		}
		b.Logf("long frame at %.0f ms, %.0f ms (blocking %.0f): rendering %.0f ms, style and layout %.0f ms; scripts: %s",
			f.Start, f.Duration, f.Blocking, f.Render, f.Style, strings.Join(parts, "; "))
	}
}

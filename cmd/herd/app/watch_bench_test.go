package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/domain"
	"herd/projections"
)

// BenchmarkWatchFanOut connects 100 watchers to a running herd over HTTP,
// each a `GET /api/v1/nodes?watch=true` of every node, then appends node
// heartbeats at a steady 1,000 a second (b.N of them) and measures, for
// every append, the time until the last of the watchers has read it:
// p50 and p99 in milliseconds (the target is a p99 under 50 ms). It also
// reports the p99 of single deliveries, and the heap each open watch costs
// (both ends of the connection, as client and server share the process).
func BenchmarkWatchFanOut(b *testing.B) {
	// One watcher shows what fan-out adds to a single delivery.
	for _, watchers := range []int{1, 100} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) { benchmarkWatchFanOut(b, watchers) })
	}
}

func benchmarkWatchFanOut(b *testing.B, watchers int) {
	const (
		nodes = 100
		rate  = 1000 // appends per second
	)
	cfg := DefaultConfig()
	cfg.Listen, cfg.DataDir, cfg.LogLevel = "127.0.0.1:0", b.TempDir(), "error"
	cfg.Reconcilers.Enabled = nil
	var (
		w   *projections.Writer
		srv *HTTPServer
	)
	a := fx.New(Options(cfg, fx.Populate(&w, &srv)), fx.NopLogger)
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = a.Stop(ctx) }()
	names := make([]string, nodes)
	hb := domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50,
		DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}}
	var head int64
	for i := range names {
		names[i] = fmt.Sprintf("node-%03d", i)
		update(b, w, names[i], domain.RegisterNode{Registration: domain.Registration{Name: names[i], Kind: domain.KindLinux}})
		head = updateAt(b, w, names[i], hb)
	}

	recv := make([]*received, watchers)
	for i := range recv {
		recv[i] = &received{from: head, at: make([]atomic.Int64, b.N)}
	}
	heapBefore := heapInUse()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: watchers}}
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	var done sync.WaitGroup
	for i := range recv {
		req, err := http.NewRequestWithContext(watchCtx, http.MethodGet,
			srv.URL()+"/api/v1/nodes?watch=true&resourceVersion="+strconv.FormatInt(head, 10), nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Do(req) //nolint:bodyclose // a watch stream: its reading goroutine closes the body
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("watch: %s", resp.Status)
		}
		done.Add(1)
		go func() {
			defer done.Done()
			defer resp.Body.Close()
			recv[i].read(resp.Body)
		}()
	}
	heapPerWatcher := float64(int64(heapInUse())-int64(heapBefore)) / float64(watchers)

	sent := make(map[int64]time.Time, b.N)
	pace := time.NewTimer(0)
	defer pace.Stop()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		// Append i is due at start + i/rate; one that is late goes at once,
		// so that the rate holds on average.
		if wait := time.Until(start.Add(time.Duration(i) * time.Second / rate)); wait > 0 {
			pace.Reset(wait)
			<-pace.C
		}
		t0 := time.Now()
		sent[updateAt(b, w, names[i%nodes], hb)] = t0
	}
	appendRate := float64(b.N) / time.Since(start).Seconds()
	last := slices.Max(slicesKeys(sent))
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for _, r := range recv {
		for _, ok := r.get(last); !ok; _, ok = r.get(last) {
			select {
			case <-deadline:
				b.Fatalf("a watcher did not receive position %d within 30s", last)
			case <-tick.C:
			}
		}
	}
	b.StopTimer()
	stopWatching()
	done.Wait()

	var slowest, each []time.Duration
	for pos, t0 := range sent {
		var worst time.Duration
		for i, r := range recv {
			at, ok := r.get(pos)
			if !ok {
				b.Fatalf("watcher %d never received position %d", i, pos)
			}
			d := max(at.Sub(t0), 0)
			each = append(each, d)
			worst = max(worst, d)
		}
		slowest = append(slowest, worst)
	}
	b.ReportMetric(ms(percentile(slowest, 50)), "p50-all-ms")
	b.ReportMetric(ms(percentile(slowest, 99)), "p99-all-ms")
	b.ReportMetric(ms(percentile(each, 99)), "p99-each-ms")
	if watchers > 1 { // one watcher's cost drowns in the heap's noise
		b.ReportMetric(heapPerWatcher/1024, "KiB/watcher")
	}
	b.ReportMetric(appendRate, "appends/s")
}

// received records when one watcher read each position after from, in
// Unix nanoseconds (0 when not yet).
type received struct {
	from int64
	at   []atomic.Int64
}

// resourceVersionKey starts the first resourceVersion in a watch frame:
// the object's own, in its metadata.
var resourceVersionKey = []byte(`"resourceVersion":"`)

func (r *received) read(body interface{ Read([]byte) (int, error) }) {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		now := time.Now()
		line := sc.Bytes()
		i := bytes.Index(line, resourceVersionKey)
		if i < 0 {
			continue
		}
		rest := line[i+len(resourceVersionKey):]
		pos, err := strconv.ParseInt(string(rest[:bytes.IndexByte(rest, '"')]), 10, 64)
		if err != nil {
			continue
		}
		if i := pos - r.from - 1; i >= 0 && i < int64(len(r.at)) {
			r.at[i].Store(now.UnixNano())
		}
	}
}

// get is when the watcher read pos; ok is false when it has not.
func (r *received) get(pos int64) (time.Time, bool) {
	i := pos - r.from - 1
	if i < 0 || i >= int64(len(r.at)) || r.at[i].Load() == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, r.at[i].Load()), true
}

// updateAt runs cmd on the node and returns the position of its last
// event.
func updateAt(b *testing.B, w *projections.Writer, name string, cmd domain.NodeCommand) int64 {
	b.Helper()
	n, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd)
	if err != nil {
		b.Fatal(err)
	}
	return n.ResourceVersion
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func percentile(ds []time.Duration, p int) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func slicesKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

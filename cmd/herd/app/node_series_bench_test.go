package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/domain"
	"herd/projections"
)

// BenchmarkNodeSeriesScrape scrapes a running herd's /metrics over HTTP
// with a fleet of 10,000 nodes (node-00000 … node-09999: half herd agents
// reporting metrics, half kubelets reporting their summary and five
// conditions, every one heartbeating) and reports the time per scrape
// (ns/op), the bytes of text (bytes/scrape) and the per-node series in it.
// The targets: under a second and under 20 MB.
func BenchmarkNodeSeriesScrape(b *testing.B) {
	const fleet = 10_000
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
	registerFleet(b, w, fleet)

	client := &http.Client{}
	var body bytes.Buffer
	cpuBefore := cpuTime(b)
	for b.Loop() {
		body.Reset()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+"/metrics", nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(&body, resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
		}
	}
	series, seriesBytes := nodeSeriesText(body.Bytes())
	// CPU time says what a scrape costs on a machine that others share,
	// where ns/op also counts the waits for a core; it includes the
	// client's side (reading and gunzipping the text).
	b.ReportMetric(float64((cpuTime(b)-cpuBefore).Milliseconds())/float64(b.N), "cpu-ms/scrape")
	b.ReportMetric(float64(body.Len()), "bytes/scrape")
	b.ReportMetric(float64(series), "node-series/scrape")
	b.ReportMetric(float64(series)/fleet, "series/node")
	b.ReportMetric(float64(seriesBytes)/fleet, "bytes/node")
}

// nodeSeriesText counts the samples of per-node series in a scrape's text
// and their bytes (newlines included, HELP and TYPE lines left out).
func nodeSeriesText(text []byte) (series, size int) {
	for line := range bytes.Lines(text) {
		if bytes.HasPrefix(line, []byte("herd_node_")) {
			series++
			size += len(line)
		}
	}
	return series, size
}

// cpuTime is the CPU time the process used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// registerFleet registers n nodes and gives each a heartbeat, from 32
// goroutines so that group commit shares the fsyncs.
func registerFleet(b *testing.B, w *projections.Writer, n int) {
	b.Helper()
	agent := domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, Load1: 0.5, MemoryTotalBytes: 8 << 30, MemoryAvailableBytes: 4 << 30,
		DiskTotalBytes: 100 << 30, DiskAvailableBytes: 60 << 30, PIDsMax: 32768, PIDsCurrent: 300, ActiveJobs: 2}}
	u := func(v uint64) *uint64 { return &v }
	pids, procs := int64(4_194_304), int64(420)
	var reported []domain.ReportedCondition
	for _, c := range []domain.ConditionType{domain.ConditionMemoryPressure, domain.ConditionDiskPressure, domain.ConditionPIDPressure, domain.ConditionNetworkUnavailable} {
		reported = append(reported, domain.ReportedCondition{Type: c, Status: domain.ConditionFalse})
	}
	kubelet := domain.RecordHeartbeat{
		Reported: append(reported, domain.ReportedCondition{Type: domain.ConditionReady, Status: domain.ConditionTrue, Reason: "KubeletReady"}),
		Kubelet: &domain.KubeletMetrics{CPUUsageNanoCores: u(1_200_000_000), MemoryAvailableBytes: u(12 << 30), MemoryWorkingSetBytes: u(4 << 30),
			NodeFSAvailableBytes: u(70 << 30), NodeFSCapacityBytes: u(120 << 30), RlimitMaxPID: &pids, RlimitCurProc: &procs},
	}
	names := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range names {
				name := fmt.Sprintf("node-%05d", i)
				kind, hb := domain.KindLinux, agent
				if i%2 == 1 {
					kind, hb = domain.KindKubelet, kubelet
				}
				reg := domain.Registration{Name: name, Kind: kind, MaxJobs: 8, Capacity: domain.ResourceList{"cpu": 4000, "memory": 16 << 30, "pods": 110}}
				for _, cmd := range []domain.NodeCommand{domain.RegisterNode{Registration: reg}, hb} {
					if _, err := w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, cmd); err != nil {
						b.Error(err)
						return
					}
				}
			}
		})
	}
	for i := range n {
		names <- i
	}
	close(names)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

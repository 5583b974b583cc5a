package kubelet

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/kubelet/kubelettest"
	"herd/events"
	"herd/projections"
)

// benchWindow is how long BenchmarkPoll500Kubelets measures: three stats
// polls and one slow poll of every kubelet at the default intervals.
// HERD_BENCH_WINDOW overrides it (a Go duration).
func benchWindow(b *testing.B) time.Duration {
	if v := os.Getenv("HERD_BENCH_WINDOW"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("HERD_BENCH_WINDOW=%q: %v", v, err)
		}
		return d
	}
	return 30 * time.Second
}

// BenchmarkPoll500Kubelets is herd polling 500 simulated kubelets on
// loopback at the default intervals (stats every 10 s, the rest every
// 30 s), each with four pods, on the real clock, writing every heartbeat
// to a real SQLite log. Every kubelet serves every endpoint herd reads,
// /spec, /metrics/cadvisor and /metrics included, the last two as large as
// real kubelets' (see realisticMetrics). Once every kubelet has been polled for the first
// time, it measures the process's CPU time (user and system, from
// getrusage) over a window of real time and reports it per wall second:
// cpu-cores below 1 means herd needs less than one core; cpu-s/cycle is
// the CPU time of one slow poll cycle (30 s: three heartbeats and one
// slow poll of every kubelet), and ms/kubelet-cycle its share per kubelet. The simulated
// kubelets run in the same process, so the figure includes serving them:
// herd's own share is smaller. Run it once: -benchtime 1x.
//
// plain polls the kubelets' read-only port; tls polls them over TLS with
// a CA bundle and a bearer token, as on port 10250 (one handshake per
// kubelet: herd keeps its connections).
func BenchmarkPoll500Kubelets(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchmarkPoll(b, false) })
	b.Run("tls", func(b *testing.B) { benchmarkPoll(b, true) })
}

func benchmarkPoll(b *testing.B, withTLS bool) {
	const kubelets = 500
	window := benchWindow(b)
	store, err := events.Open(b.Context(), events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := projections.Migrate(b.Context(), store.Log()); err != nil {
		b.Fatal(err)
	}
	clk := clock.RealClock{}
	w := projections.NewWriter(store.Log(), clk, nil)
	cfg := DefaultConfig()
	cadvisor, metrics := realisticMetrics(b)
	token := filepath.Join(b.TempDir(), "token")
	if err := os.WriteFile(token, []byte("bench-token"), 0o600); err != nil {
		b.Fatal(err)
	}
	for i := range kubelets {
		name := fmt.Sprintf("worker-%03d", i)
		k := kubelettest.New(name)
		k.SetPods(kubelettest.WithCPULimit(kubelettest.RunningPod("shop", name+"-web"), "500m"), kubelettest.RunningPod("shop", name+"-api"),
			kubelettest.RunningPod("kube-system", name+"-proxy"), kubelettest.CrashLoopingPod("batch", name+"-job", 4))
		k.ServeExtra(endpointCadvisor, cadvisor)
		k.ServeExtra(endpointMetrics, metrics)
		srv := httptest.NewUnstartedServer(k)
		if withTLS {
			k.RequireToken("bench-token")
			srv.StartTLS()
			if cfg.Defaults.CAFile == "" {
				cfg.Defaults.CAFile = filepath.Join(b.TempDir(), "ca.pem")
				ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
				if err := os.WriteFile(cfg.Defaults.CAFile, ca, 0o600); err != nil {
					b.Fatal(err)
				}
				cfg.Defaults.BearerTokenFile = token
			}
		} else {
			srv.Start()
		}
		defer srv.Close()
		cfg.Flags = append(cfg.Flags, name+"="+srv.URL)
	}
	sink := &Commands{Nodes: w.NodeCommands(), Pods: podStore{w.PodBatch(), projections.NewPodView(store.Log())}}
	reg := prometheus.NewRegistry()
	m, err := NewManager(cfg, sink, w.KubeletTargetsCommands(), projections.NewKubeletTargetView(store.Log()), clk, zap.NewNop(), NewMetrics(reg))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = m.Stop(b.Context()) }()

	heartbeats := func() (total int64, polled int) {
		for _, s := range m.Status() {
			total += s.Heartbeats
			if s.Heartbeats > 0 {
				polled++
			}
		}
		return total, polled
	}
	deadline := time.Now().Add(3 * time.Minute)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for _, polled := heartbeats(); polled < kubelets; _, polled = heartbeats() {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d kubelets polled within 3 minutes", polled, kubelets)
		}
		<-tick.C
	}

	b.ResetTimer()
	for range b.N {
		beats0, _ := heartbeats()
		requests0 := requests(b, reg)
		cpu0, wall0 := cpuTime(b), time.Now()
		<-time.After(window) // the measurement is of real time passing
		cpu, wall := cpuTime(b)-cpu0, time.Since(wall0)
		beats, _ := heartbeats()
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-cores")
		cycle := cpu.Seconds() / wall.Seconds() * cfg.Interval.Seconds()
		b.ReportMetric(cycle, "cpu-s/cycle")
		b.ReportMetric(cycle/kubelets*1000, "ms/kubelet-cycle")
		b.ReportMetric(float64(beats-beats0)/wall.Seconds(), "heartbeats/s")
		b.ReportMetric((requests(b, reg)-requests0)/wall.Seconds(), "requests/s")
	}
	b.StopTimer()
	for _, s := range m.Status() {
		if s.Failures > 0 {
			b.Errorf("%s failed %d polls in a row: %+v", s.Name, s.Failures, s.LastFailure)
		}
		if f := s.LastFailure; f != nil {
			b.Errorf("%s: %+v", s.Name, f)
		}
	}
}

// realisticMetrics is what the simulated kubelets serve on
// /metrics/cadvisor and /metrics beyond the families they simulate: the
// recorded minikube and EKS answers without those families (1.4 MB and
// 240 kB) when the shared fixtures are here, else generated families of
// the same sizes.
func realisticMetrics(b *testing.B) (cadvisor, metrics []byte) {
	read := func(name string, drop [][]byte, size int, filler string) []byte {
		body, err := os.ReadFile(filepath.Join(sharedFixtures(), name))
		if err != nil {
			return generatedFamily(filler, size)
		}
		var out bytes.Buffer
		for line := range bytes.Lines(body) {
			name := line
			if bytes.HasPrefix(line, []byte("# ")) && len(line) > 7 {
				name = line[7:]
			}
			if !slices.ContainsFunc(drop, func(f []byte) bool { return bytes.HasPrefix(name, f) }) {
				out.Write(line)
			}
		}
		b.Logf("serving %s (%d bytes) from %s", name, out.Len(), sharedFixtures())
		return out.Bytes()
	}
	pleg := [][]byte{[]byte("kubelet_pleg_relist_duration_seconds"), []byte("kubelet_runtime_operations_errors_total"), []byte("kubernetes_build_info")}
	return read("metrics-cadvisor-minikube.txt", cadvisorFamilies, 1_400_000, "container_memory_working_set_bytes"),
		read("metrics-kubelet-eks.txt", pleg, 240_000, "rest_client_request_duration_seconds_bucket")
}

// generatedFamily is a gauge family of about size bytes, with labels as
// long as cAdvisor's.
func generatedFamily(name string, size int) []byte {
	var out bytes.Buffer
	fmt.Fprintf(&out, "# HELP %s Generated for the benchmark.\n# TYPE %s gauge\n", name, name)
	for i := 0; out.Len() < size; i++ {
		fmt.Fprintf(&out, "%s{container=\"c%d\",id=\"/kubepods/burstable/pod%08d-5f89-43b7-b88b-6ee26f5b18a4/%064d\",image=\"registry.example.com/app:1.0\",name=\"%064d\",namespace=\"shop\",pod=\"app-%d\"} %d 1782468875486\n",
			name, i, i, i, i, i, i*4096)
	}
	return out.Bytes()
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// requests is how many requests herd made to kubelets so far.
func requests(b *testing.B, g prometheus.Gatherer) float64 {
	fams, err := g.Gather()
	if err != nil {
		b.Fatal(err)
	}
	total := 0.0
	for _, f := range fams {
		if f.GetName() == "herd_kubelet_scrapes_total" {
			for _, m := range f.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

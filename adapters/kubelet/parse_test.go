package kubelet

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from what the code produces")

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares got, as indented JSON, with testdata/name; -update
// writes it instead.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("%s (-golden +got):\n%s", name, diff)
	}
}

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }

func TestDecodeSummary(t *testing.T) {
	tests := []struct {
		file string
		want nodeSummary
		// capacity is what the node registers with.
		capacity domain.ResourceList
	}{
		{"stats-summary.json", nodeSummary{
			NodeName:       "worker-a",
			KubeletStarted: time.Date(2026, 2, 27, 8, 14, 2, 0, time.UTC),
			Metrics: domain.KubeletMetrics{
				CPUUsageNanoCores: u64(468231907), CPUUsageCoreNanoSeconds: u64(81237785130882),
				MemoryAvailableBytes: u64(11713466368), MemoryWorkingSetBytes: u64(4937416704),
				NodeFSAvailableBytes: u64(61420519424), NodeFSCapacityBytes: u64(107317563392),
				NodeFSInodesFree: u64(6211841), NodeFSInodes: u64(6553600),
				ImageFSAvailableBytes: u64(61420519424), ImageFSCapacityBytes: u64(107317563392),
				ImageFSInodesFree: u64(6211841), ImageFSInodes: u64(6553600),
				RlimitMaxPID: i64(4194304), RlimitCurProc: i64(1187),
			},
		}, domain.ResourceList{"memory": 16650883072, "ephemeral-storage": 107317563392}},
		// Nulls and missing sections stay unknown: no memory available, no
		// inodes, no image filesystem, no PIDs, no kubelet start time.
		{"stats-summary-sparse.json", nodeSummary{
			NodeName: "edge-3",
			Metrics: domain.KubeletMetrics{
				MemoryWorkingSetBytes: u64(1317011456),
				NodeFSAvailableBytes:  u64(3122688000), NodeFSCapacityBytes: u64(31036686336),
			},
		}, domain.ResourceList{"ephemeral-storage": 31036686336}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := decodeSummary(readFixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.capacity, got.capacity()); diff != "" {
				t.Errorf("capacity (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBrokenBodiesAreErrors cuts every fixture short at many places and
// feeds each decoder garbage: every one must fail with an error naming the
// endpoint, and none may panic.
func TestBrokenBodiesAreErrors(t *testing.T) {
	decoders := map[string]struct {
		file, endpoint string
		decode         func([]byte) error
	}{
		"summary":  {"stats-summary.json", "/stats/summary", func(b []byte) error { _, err := decodeSummary(b); return err }},
		"pods":     {"pods.json", "/pods", func(b []byte) error { _, err := decodePods(b); return err }},
		"configz":  {"configz.json", "/configz", func(b []byte) error { _, err := decodeConfigz(b); return err }},
		"probes":   {"metrics-probes.txt", "/metrics/probes", func(b []byte) error { _, err := decodeProbes(b); return err }},
		"resource": {"metrics-resource.txt", "/metrics/resource", func(b []byte) error { _, err := decodeResource(b); return err }},
		"spec":     {"spec.json", "/spec", func(b []byte) error { _, err := decodeSpec(b); return err }},
	}
	for name, d := range decoders {
		t.Run(name, func(t *testing.T) {
			full := readFixture(t, d.file)
			if err := d.decode(full); err != nil {
				t.Fatalf("the whole fixture: %v", err)
			}
			var bad [][]byte
			for _, cut := range []int{1, 7, len(full) / 3, len(full) / 2, len(full) - 40} {
				b := full[:cut]
				if strings.HasSuffix(d.file, ".txt") && bytes.HasSuffix(b, []byte("\n")) {
					continue // a text exposition cut at a line end is still valid text
				}
				bad = append(bad, b)
			}
			bad = append(bad, []byte("<html><body>502 Bad Gateway</body></html>"))
			for _, b := range bad {
				err := d.decode(b)
				if err == nil {
					t.Errorf("%.40q...: decoded without error", b)
					continue
				}
				if !strings.Contains(err.Error(), d.endpoint) {
					t.Errorf("error %q does not name %s", err, d.endpoint)
				}
			}
		})
	}
}

func TestDecodeConfigz(t *testing.T) {
	got, err := decodeConfigz(readFixture(t, "configz.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := settings{
		Thresholds: []Threshold{
			{Signal: SignalImageFSAvailable, Value: "15%", Percent: 15},
			{Signal: SignalMemoryAvailable, Value: "500Mi", Quantity: 500 << 20},
			{Signal: SignalNodeFSAvailable, Value: "10%", Percent: 10},
			{Signal: SignalNodeFSInodesFree, Value: "5%", Percent: 5},
			{Signal: SignalPIDAvailable, Value: "5%", Percent: 5},
		},
		FromConfigz: true,
		MaxPods:     58,
		Reserved:    domain.ResourceList{"cpu": 90, "ephemeral-storage": 1 << 30, "memory": (893 + 256) << 20},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	capacity := domain.ResourceList{"memory": 16 << 30, "ephemeral-storage": 100 << 30, "pods": 58}
	wantAlloc := domain.ResourceList{
		"memory":            16<<30 - (893+256)<<20 - 500<<20,
		"ephemeral-storage": 100<<30 - 1<<30 - 10<<30,
		"pods":              58,
	}
	if diff := cmp.Diff(wantAlloc, got.allocatable(capacity)); diff != "" {
		t.Errorf("allocatable (-want +got):\n%s", diff)
	}
}

func TestDecodeConfigzEdges(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		want     settings
		problems []string
		wantErr  string
	}{
		{"no evictionHard: the kubelet's defaults", `{"kubeletconfig":{}}`, defaultSettings(), nil, ""},
		{"empty evictionHard: the defaults", `{"kubeletconfig":{"evictionHard":{},"maxPods":null}}`, defaultSettings(), nil, ""},
		{"thresholds switched off with 0%", `{"kubeletconfig":{"evictionHard":{"nodefs.available":"0%","memory.available":"1Gi"}}}`,
			settings{Thresholds: []Threshold{{Signal: SignalMemoryAvailable, Value: "1Gi", Quantity: 1 << 30}}, FromConfigz: true}, nil, ""},
		{"values herd cannot read are left out and named", `{"kubeletconfig":{"evictionHard":{"memory.available":"lots","nodefs.available":"150%","pid.available":"1000"},"kubeReserved":{"memory":"-1Gi"}}}`,
			settings{Thresholds: []Threshold{{Signal: SignalPIDAvailable, Value: "1000", Quantity: 1000}}, FromConfigz: true},
			[]string{
				`evictionHard memory.available="lots": want a quantity such as 100Mi or a percentage such as 10%`,
				`evictionHard nodefs.available="150%": want a percentage from 0% to 100%`,
				`kubeReserved memory="-1Gi": not a quantity`,
			}, ""},
		{"not the kubelet's wrapper", `{"evictionHard":{}}`, settings{}, nil, "decode /configz: no kubeletconfig object"},
		{"null", `null`, settings{}, nil, "decode /configz: no kubeletconfig object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeConfigz([]byte(tt.body))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var problems []string
			for _, p := range got.Problems {
				problems = append(problems, p.Error())
			}
			got.Problems = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultThresholds(t *testing.T) {
	want := []Threshold{
		{Signal: SignalImageFSAvailable, Value: "15%", Percent: 15},
		{Signal: SignalMemoryAvailable, Value: "100Mi", Quantity: 100 << 20},
		{Signal: SignalNodeFSAvailable, Value: "10%", Percent: 10},
		{Signal: SignalNodeFSInodesFree, Value: "5%", Percent: 5},
	}
	if diff := cmp.Diff(want, DefaultThresholds()); diff != "" {
		t.Errorf("the kubelet's defaults (-want +got):\n%s", diff)
	}
}

func TestDecodeProbes(t *testing.T) {
	got, err := decodeProbes(readFixture(t, "metrics-probes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := probeFailures{
		{Namespace: "kube-system", Pod: "calico-node-h7v2c", Container: "calico-node"}: {
			{PodUID: "8a2c6e0f-3d9b-4715-b84e-1f7a5c9d3e02", Probe: "Readiness", Failed: 4},
		},
		{Namespace: "shop", Pod: "worker-5b8c7d9f6-xq2rt", Container: "worker"}: {
			{PodUID: "4e9d2f7a-1b6c-48e3-a05d-7c3f8b1e9a26", Probe: "Liveness", Failed: 15},
			{PodUID: "4e9d2f7a-1b6c-48e3-a05d-7c3f8b1e9a26", Probe: "Readiness", Failed: 27},
			{PodUID: "0c4d2e1f-aaaa-4bbb-8ccc-ddddeeeeffff", Probe: "Readiness", Failed: 900},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe failures (-want +got):\n%s", diff)
	}
}

func TestDecodeResource(t *testing.T) {
	got, err := decodeResource(readFixture(t, "metrics-resource.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cpu, mem := 81237.785130882, 4.937416704e+09
	if diff := cmp.Diff(usage{NodeCPUSeconds: &cpu, NodeMemoryWorkingSet: &mem}, got); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	failing, err := decodeResource([]byte("# TYPE resource_scrape_error gauge\nresource_scrape_error 1\n"))
	if err != nil || !failing.ScrapeError || failing.NodeCPUSeconds != nil {
		t.Errorf("a kubelet reporting its own scrape error: %+v, %v", failing, err)
	}
}

func TestObservedPods(t *testing.T) {
	l, err := decodePods(readFixture(t, "pods.json"))
	if err != nil {
		t.Fatal(err)
	}
	probes, err := decodeProbes(readFixture(t, "metrics-probes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := ObservedPods("worker-a", l, probes)
	golden(t, "pods.golden.json", got)

	byName := map[string]domain.ObservePod{}
	for _, p := range got {
		byName[p.Namespace+"/"+p.Name] = p
	}
	if len(got) != 7 {
		t.Errorf("%d pods, want 7 (the nameless one is skipped)", len(got))
	}
	for _, tt := range []struct {
		pod, reason, message string
	}{
		{"shop/api-6d5f9c7b8-mz7wp", ReasonCrashLoopBackOff, "container api restarted 12 times, last exit code 1 (Error)"},
		{"shop/worker-5b8c7d9f6-xq2rt", ReasonCrashLoopBackOff, "container worker restarted 5 times, last exit code 137 (OOMKilled)"},
		{"shop/web-7c9d8b6f5d-k2x4q", "", ""},
		{"shop/cache-0", "", ""},
	} {
		p := byName[tt.pod]
		if p.Status.Reason != tt.reason || p.Status.Message != tt.message {
			t.Errorf("%s: reason %q, message %q; want %q, %q", tt.pod, p.Status.Reason, p.Status.Message, tt.reason, tt.message)
		}
	}
	if f := byName["shop/worker-5b8c7d9f6-xq2rt"].Status.ContainerStatuses[0].ProbeFailures; f != 15+27 {
		t.Errorf("worker's probe failures %d, want 42 (not those of an earlier pod of the same name)", f)
	}
	for _, p := range got {
		if p.Spec.NodeName != "worker-a" {
			t.Errorf("%s is on %q, want worker-a", p.Name, p.Spec.NodeName)
		}
		if _, err := domain.DecidePod(domain.Pod{}, p, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)); err != nil {
			t.Errorf("herd refuses %s/%s: %v", p.Namespace, p.Name, err)
		}
	}
}

func TestCrashLoopRule(t *testing.T) {
	l, err := decodePods([]byte(`{"items":[
{"metadata":{"name":"three","namespace":"a"},"status":{"containerStatuses":[{"name":"c","restartCount":3,"state":{"running":{}},"lastState":{"terminated":{"exitCode":2}}}]}},
{"metadata":{"name":"four","namespace":"a"},"status":{"containerStatuses":[{"name":"c","restartCount":4,"state":{"waiting":{}},"lastState":{"terminated":{"exitCode":2}}}]}},
{"metadata":{"name":"four-no-last","namespace":"a"},"status":{"containerStatuses":[{"name":"c","restartCount":4,"state":{"running":{}}}]}},
{"metadata":{"name":"init","namespace":"a"},"status":{"initContainerStatuses":[{"name":"setup","restartCount":9,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"reason":"Error"}}}]}},
{"metadata":{"name":"evicted","namespace":"a"},"status":{"phase":"Failed","reason":"Evicted","message":"low on memory","containerStatuses":[{"name":"c","restartCount":8,"state":{"terminated":{"exitCode":137}},"lastState":{"terminated":{"exitCode":137}}}]}}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ObservedPods("n", l, nil) {
		line := p.Name + ": " + p.Status.Reason + " / " + p.Status.Message
		for _, c := range p.Status.ContainerStatuses {
			if w := c.State.Waiting; w != nil {
				line += " / waiting " + w.Reason
			}
		}
		got = append(got, line)
	}
	want := []string{
		"evicted: Evicted / low on memory",
		"four: CrashLoopBackOff / container c restarted 4 times, last exit code 2 / waiting CrashLoopBackOff",
		"four-no-last:  / ",
		"init: CrashLoopBackOff / init container setup restarted 9 times, last exit code 1 (Error)",
		"three:  / ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("crash loops (-want +got):\n%s", diff)
	}
}

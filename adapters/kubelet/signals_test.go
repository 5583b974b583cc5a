package kubelet

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"herd/adapters/kubelet/kubelettest"
	"herd/domain"
)

func TestDecodeCadvisor(t *testing.T) {
	s, err := decodeCadvisor(readFixture(t, "metrics-cadvisor.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Seven named containers; sandboxes and cgroups of pods and of the
	// node are not containers.
	if len(s.CFS) != 7 {
		t.Errorf("%d containers with CFS counters, want 7: %v", len(s.CFS), s.CFS)
	}
	pi := containerRef{Namespace: "scraper", Pod: "e2e-daemonset-kb65b", Container: "compute-pi-digits"}
	if got, want := s.CFS[pi], (cfsPeriods{Periods: 423, Throttled: 423}); got != want {
		t.Errorf("%v: %+v, want %+v", pi, got, want)
	}
	if !s.NetworkKnown || s.NetworkErrors != 0 {
		t.Errorf("network errors %v (known %v), want 0 known", s.NetworkErrors, s.NetworkKnown)
	}
}

func TestDecodeKubeletMetrics(t *testing.T) {
	s, err := decodeKubeletMetrics(readFixture(t, "metrics-kubelet.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := kubeletSample{Version: "v1.21.2", RuntimeErrors: map[string]float64{"exec_sync": 16},
		RelistSeconds: 35470.97548711002, Relists: 1.67195e+06, RelistKnown: true}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("/metrics (-want +got):\n%s", diff)
	}
}

func TestDecodeRefusesWhatIsNotPrometheusText(t *testing.T) {
	for _, body := range []string{`{"items": [`, "<html><body>502 Bad Gateway</body></html>"} {
		if _, err := decodeCadvisor([]byte(body)); err == nil || !strings.Contains(err.Error(), "/metrics/cadvisor: line 1 is not Prometheus text") {
			t.Errorf("decodeCadvisor(%q): %v, want an error naming the endpoint and line", body, err)
		}
		if _, err := decodeKubeletMetrics([]byte(body)); err == nil || !strings.Contains(err.Error(), "/metrics: line 1") {
			t.Errorf("decodeKubeletMetrics(%q): %v, want an error naming the endpoint and line", body, err)
		}
	}
}

// reported is the heartbeat's condition of type typ, or "none".
func reported(hb domain.RecordHeartbeat, typ domain.ConditionType) domain.ReportedCondition {
	for _, c := range hb.Reported {
		if c.Type == typ {
			return c
		}
	}
	return domain.ReportedCondition{Type: typ, Status: "none"}
}

// slowPoll moves the rig's clock through the next slow poll and the
// heartbeat after it, which carries what the slow poll read, and returns
// that heartbeat. (The slow poll comes right after a heartbeat at the
// same time: the first call moves the clock by four heartbeats, the next
// by three.)
func (r *rig) slowPoll() domain.RecordHeartbeat {
	r.t.Helper()
	n := 3
	if !r.slowAligned {
		n, r.slowAligned = 4, true
	}
	for range n {
		r.pass(10 * time.Second)
	}
	return r.sink.lastHeartbeat(r.t)
}

// podCondition is the condition of type typ on pod name in the last pods
// reported, or false.
func (r *recorder) podCondition(t *testing.T, name string, typ domain.PodConditionType) (domain.PodCondition, bool) {
	t.Helper()
	_, _, _, pods := r.snapshot()
	if len(pods) == 0 {
		t.Fatal("no pods reported")
	}
	for _, p := range pods[len(pods)-1] {
		if p.Name != name {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == typ {
				return c, true
			}
		}
	}
	return domain.PodCondition{}, false
}

func TestPollerCPUThrottlingRaisedAndCleared(t *testing.T) {
	k := kubelettest.New("worker-a")
	web, api := kubelettest.WithCPULimit(kubelettest.RunningPod("shop", "web"), "500m"), kubelettest.WithCPULimit(kubelettest.RunningPod("shop", "api"), "1")
	k.SetPods(web, api, kubelettest.RunningPod("shop", "db"))
	r := newRig(t, k, serve(t, k), nil)
	if c := reported(r.sink.lastHeartbeat(t), domain.ConditionCPUThrottling); c.Status != "none" {
		t.Fatalf("after one read: %+v, want no CPUThrottling yet (one read gives no share)", c)
	}

	// web is held back in half its periods, api in a tenth: one interval
	// above the threshold is not yet sustained.
	k.AddCPUPeriods(web, "web", 300, 150)
	k.AddCPUPeriods(api, "api", 300, 30)
	hb := r.slowPoll()
	want := domain.ReportedCondition{Type: domain.ConditionCPUThrottling, Status: domain.ConditionFalse, Reason: domain.ReasonNoCPUThrottling,
		Message: "no container was throttled in more than 25% of its CPU periods for 1m0s"}
	if diff := cmp.Diff(want, reported(hb, domain.ConditionCPUThrottling)); diff != "" {
		t.Errorf("after 30s of throttling (-want +got):\n%s", diff)
	}
	noThrottling := domain.PodCondition{Type: domain.PodConditionCPUThrottled, Status: domain.ConditionFalse, Reason: domain.ReasonNoCPUThrottling,
		Message: "no container was throttled in more than 25% of its CPU periods for 1m0s"}
	if c, _ := r.sink.podCondition(t, "web", domain.PodConditionCPUThrottled); c != noThrottling {
		t.Errorf("web before the window passed: %+v, want %+v", c, noThrottling)
	}

	// A second interval: a minute, and web is throttled.
	k.AddCPUPeriods(web, "web", 300, 240)
	k.AddCPUPeriods(api, "api", 300, 30)
	hb = r.slowPoll()
	want = domain.ReportedCondition{Type: domain.ConditionCPUThrottling, Status: domain.ConditionTrue, Reason: domain.ReasonContainersThrottled,
		Message: "throttled in more than 25% of their CPU periods for 1m0s: shop/web/web (80%)"}
	if diff := cmp.Diff(want, reported(hb, domain.ConditionCPUThrottling)); diff != "" {
		t.Errorf("after 60s of throttling (-want +got):\n%s", diff)
	}
	wantPod := domain.PodCondition{Type: domain.PodConditionCPUThrottled, Status: domain.ConditionTrue, Reason: domain.ReasonContainersThrottled,
		Message: "throttled in more than 25% of its CPU periods for 1m0s: web (80%)"}
	got, _ := r.sink.podCondition(t, "web", domain.PodConditionCPUThrottled)
	if diff := cmp.Diff(wantPod, got); diff != "" {
		t.Errorf("web's condition (-want +got):\n%s", diff)
	}
	if c, _ := r.sink.podCondition(t, "api", domain.PodConditionCPUThrottled); c != noThrottling {
		t.Errorf("api, throttled in a tenth of its periods only: %+v, want %+v", c, noThrottling)
	}
	if c, ok := r.sink.podCondition(t, "db", domain.PodConditionCPUThrottled); ok {
		t.Errorf("db, without a CPU limit: %+v, want none (cAdvisor has no CFS figures for it)", c)
	}

	// Still throttled, at another share: the message keeps the share web
	// was called throttled at, and the pods are not reported again.
	_, _, _, before := r.sink.snapshot()
	k.AddCPUPeriods(web, "web", 300, 200)
	if diff := cmp.Diff(want, reported(r.slowPoll(), domain.ConditionCPUThrottling)); diff != "" {
		t.Errorf("still throttled (-want +got):\n%s", diff)
	}
	if _, _, _, after := r.sink.snapshot(); len(after) != len(before) {
		t.Errorf("pods reported %d times more while nothing changed for them", len(after)-len(before))
	}

	// web gets the CPU it needs: cleared at once.
	k.AddCPUPeriods(web, "web", 300, 3)
	if c := reported(r.slowPoll(), domain.ConditionCPUThrottling); c.Status != domain.ConditionFalse || c.Reason != domain.ReasonNoCPUThrottling {
		t.Errorf("after the throttling ended: %+v, want False NoCPUThrottling", c)
	}
	if c, _ := r.sink.podCondition(t, "web", domain.PodConditionCPUThrottled); c != noThrottling {
		t.Errorf("web after the throttling ended: %+v, want %+v", c, noThrottling)
	}
}

func TestPollerNetworkErrors(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	ok := domain.ReportedCondition{Type: domain.ConditionNetworkUnavailable, Status: domain.ConditionFalse, Reason: domain.ReasonNetworkAvailable,
		Message: "the node's network interfaces count no more than 1 receive and transmit errors per second"}
	if diff := cmp.Diff(ok, reported(r.slowPoll(), domain.ConditionNetworkUnavailable)); diff != "" {
		t.Errorf("a quiet link (-want +got):\n%s", diff)
	}
	// 20 errors in 30 s is no outage; 90 is.
	k.AddNetworkErrors(20)
	if c := reported(r.slowPoll(), domain.ConditionNetworkUnavailable); c.Status != domain.ConditionFalse {
		t.Errorf("0.7 errors/s: %+v, want False", c)
	}
	k.AddNetworkErrors(90)
	want := domain.ReportedCondition{Type: domain.ConditionNetworkUnavailable, Status: domain.ConditionTrue, Reason: domain.ReasonNetworkErrors,
		Message: "the node's network interfaces count more than 1 receive and transmit errors per second"}
	if diff := cmp.Diff(want, reported(r.slowPoll(), domain.ConditionNetworkUnavailable)); diff != "" {
		t.Errorf("3 errors/s (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ok, reported(r.slowPoll(), domain.ConditionNetworkUnavailable)); diff != "" {
		t.Errorf("errors stopped rising (-want +got):\n%s", diff)
	}
}

func TestPollerContainerRuntimeHealth(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	healthy := domain.ReportedCondition{Type: domain.ConditionContainerRuntimeUnhealthy, Status: domain.ConditionFalse,
		Reason: domain.ReasonContainerRuntimeHealthy, Message: messageRuntimeHealthy}
	k.AddRelists(30, 0.02)
	if diff := cmp.Diff(healthy, reported(r.slowPoll(), domain.ConditionContainerRuntimeUnhealthy)); diff != "" {
		t.Errorf("a healthy runtime (-want +got):\n%s", diff)
	}
	k.AddRuntimeErrors("pull_image", 3)
	k.AddRuntimeErrors("exec_sync", 1)
	k.AddRelists(30, 0.02)
	want := domain.ReportedCondition{Type: domain.ConditionContainerRuntimeUnhealthy, Status: domain.ConditionTrue,
		Reason: domain.ReasonContainerRuntimeErrors, Message: "the container runtime failed exec_sync, pull_image operations since herd's last poll"}
	if diff := cmp.Diff(want, reported(r.slowPoll(), domain.ConditionContainerRuntimeUnhealthy)); diff != "" {
		t.Errorf("failing operations (-want +got):\n%s", diff)
	}
	// Relists that take 2.5 s, over the kubelet's 1 s period.
	k.AddRelists(12, 2.5)
	want = domain.ReportedCondition{Type: domain.ConditionContainerRuntimeUnhealthy, Status: domain.ConditionTrue,
		Reason: domain.ReasonPodLifecycleSlow, Message: "the kubelet took longer than 1s on average to relist the container runtime's pods"}
	if diff := cmp.Diff(want, reported(r.slowPoll(), domain.ConditionContainerRuntimeUnhealthy)); diff != "" {
		t.Errorf("slow relists (-want +got):\n%s", diff)
	}
	k.AddRelists(30, 0.02)
	if diff := cmp.Diff(healthy, reported(r.slowPoll(), domain.ConditionContainerRuntimeUnhealthy)); diff != "" {
		t.Errorf("healthy again (-want +got):\n%s", diff)
	}
}

func TestPollerCPUPressure(t *testing.T) {
	k := kubelettest.New("worker-a")
	k.SetCPUUsage(3_300_000_000) // 82.5% of 4 cores
	r := newRig(t, k, serve(t, k), nil)
	want := domain.ReportedCondition{Type: domain.ConditionCPUPressure, Status: domain.ConditionTrue, Reason: domain.ReasonHasInsufficientCPU,
		Message: "CPU use is above 80% of the node's 4 cores"}
	if diff := cmp.Diff(want, reported(r.sink.lastHeartbeat(t), domain.ConditionCPUPressure)); diff != "" {
		t.Errorf("82.5%% of the cores (-want +got):\n%s", diff)
	}
	k.SetCPUUsage(3_200_000_000) // exactly 80%: not above
	r.pass(10 * time.Second)
	if c := reported(r.sink.lastHeartbeat(t), domain.ConditionCPUPressure); c != cpuOK {
		t.Errorf("80%% of the cores: %+v, want %+v", c, cpuOK)
	}
}

func TestCPUPressureThresholdAndUnknowns(t *testing.T) {
	spec := &machineSpec{NumCores: 2}
	use := func(v uint64) domain.KubeletMetrics { return domain.KubeletMetrics{CPUUsageNanoCores: &v} }
	if c, _ := cpuPressure(use(1_100_000_000), spec, 50); c.Status != domain.ConditionTrue {
		t.Errorf("55%% over a 50%% threshold: %+v", c)
	}
	if _, ok := cpuPressure(use(1), nil, 80); ok {
		t.Error("CPUPressure without /spec's cores")
	}
	if _, ok := cpuPressure(domain.KubeletMetrics{}, spec, 80); ok {
		t.Error("CPUPressure without usageNanoCores")
	}
}

func TestPollerKubeletVersionToldWhenItChanges(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	for range 3 {
		r.slowPoll()
	}
	if m := r.sink.observedMachines(); len(m) != 1 || m[0].AgentVersion != kubelettest.Version {
		t.Fatalf("machines %+v, want the version told once", m)
	}
	k.SetVersion("v1.34.0")
	r.slowPoll()
	m := r.sink.observedMachines()
	if len(m) != 2 || m[1].AgentVersion != "v1.34.0" || m[1].MachineID != kubelettest.MachineID {
		t.Errorf("machines %+v, want a second with the new version and the same machine", m)
	}
}

func TestPollerNamesCadvisorAndMetricsFailures(t *testing.T) {
	k := kubelettest.New("worker-a")
	k.Respond("/metrics/cadvisor", http.StatusForbidden, "Forbidden (user=herd, verb=get, resource=nodes, subresource=metrics)")
	k.Respond("/metrics", http.StatusNotFound, "404 page not found")
	r := newRig(t, k, serve(t, k), nil)
	hb := r.slowPoll()
	for _, typ := range []domain.ConditionType{domain.ConditionCPUThrottling, domain.ConditionNetworkUnavailable, domain.ConditionContainerRuntimeUnhealthy} {
		if c := reported(hb, typ); c.Status != "none" {
			t.Errorf("%s: %+v, want none when herd cannot read its figures", typ, c)
		}
	}
	if n := testutil.ToFloat64(r.metrics.errors.WithLabelValues("worker-a", endpointCadvisor, ReasonForbidden)); n != 2 {
		t.Errorf("%v forbidden /metrics/cadvisor counted, want 2", n)
	}
	// A 404 is done without: not an error.
	if n := testutil.CollectAndCount(r.metrics.errors, "herd_kubelet_scrape_errors_total"); n != 1 {
		t.Errorf("%d error series, want the one for /metrics/cadvisor", n)
	}
	if _, _, fails, _ := r.sink.snapshot(); len(fails) != 0 {
		t.Errorf("failures %+v: the node beats without these figures", fails)
	}
}

// TestPollerEndpointThatStopsBeingServed: conditions herd judged from an
// endpoint that then answers 404 turn Unknown, naming the endpoint, rather
// than stay as they last were; once it is served again they are judged
// again. An endpoint never served gives no condition at all.
func TestPollerEndpointThatStopsBeingServed(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)
	k.AddRelists(30, 0.02)
	r.slowPoll()
	hb := r.slowPoll()
	for _, typ := range []domain.ConditionType{domain.ConditionCPUThrottling, domain.ConditionNetworkUnavailable, domain.ConditionContainerRuntimeUnhealthy} {
		if c := reported(hb, typ); c.Status != domain.ConditionFalse {
			t.Fatalf("%s while served: %+v, want False", typ, c)
		}
	}
	k.Respond("/metrics/cadvisor", http.StatusNotFound, "404 page not found")
	hb = r.slowPoll()
	for _, typ := range []domain.ConditionType{domain.ConditionCPUThrottling, domain.ConditionNetworkUnavailable} {
		want := domain.ReportedCondition{Type: typ, Status: domain.ConditionUnknown, Reason: domain.ReasonMetricsNotServed,
			Message: "the kubelet no longer serves /metrics/cadvisor, which herd judged this condition from"}
		if diff := cmp.Diff(want, reported(hb, typ)); diff != "" {
			t.Errorf("%s once /metrics/cadvisor is gone (-want +got):\n%s", typ, diff)
		}
	}
	if c := reported(hb, domain.ConditionContainerRuntimeUnhealthy); c.Status != domain.ConditionFalse {
		t.Errorf("ContainerRuntimeUnhealthy, from /metrics still served: %+v, want False", c)
	}
	k.Respond("/metrics/cadvisor", 0, "")
	r.slowPoll()
	hb = r.slowPoll()
	if c := reported(hb, domain.ConditionCPUThrottling); c.Status != domain.ConditionFalse {
		t.Errorf("CPUThrottling once /metrics/cadvisor is back: %+v, want False", c)
	}
}

package kubelet

import (
	"testing"
	"time"

	"herd/adapters/kubelet/kubelettest"
	"herd/domain"
)

func (h *herdRig) head() int64 {
	h.t.Helper()
	head, err := h.store.Head(h.t.Context(), h.store.DB())
	if err != nil {
		h.t.Fatal(err)
	}
	return head
}

// TestSignalsAppendOnlyWhatChanged follows one kubelet into the log: its
// machine, version and signals fill the node; a poll that changes nothing
// appends its heartbeats and nothing else; a throttled container changes
// the node's condition and its pod, once each.
func TestSignalsAppendOnlyWhatChanged(t *testing.T) {
	h := newHerdRig(t)
	k := kubelettest.New("worker-a")
	web := kubelettest.WithCPULimit(kubelettest.RunningPod("shop", "web"), "500m")
	k.SetPods(web)
	srv := serve(t, k)
	cfg := DefaultConfig()
	cfg.Flags = []string{"worker-a=" + srv.URL}
	m := h.manager(cfg)
	// Two slow polls: every signal has had two reads.
	for range 7 {
		h.pass(m, 10*time.Second)
	}

	n := h.node("worker-a")
	if n.Capacity["cpu"] != kubelettest.Cores*1000 || n.Info.AgentVersion != kubelettest.Version || n.Info.MachineID != kubelettest.MachineID {
		t.Errorf("capacity %v, System Info %+v: want %d cores, kubelet %s and the machine's ID", n.Capacity, n.Info, kubelettest.Cores, kubelettest.Version)
	}
	for typ, want := range map[domain.ConditionType]string{
		domain.ConditionCPUPressure:               "False " + domain.ReasonHasSufficientCPU,
		domain.ConditionCPUThrottling:             "False " + domain.ReasonNoCPUThrottling,
		domain.ConditionNetworkUnavailable:        "False " + domain.ReasonNetworkAvailable,
		domain.ConditionContainerRuntimeUnhealthy: "False " + domain.ReasonContainerRuntimeHealthy,
	} {
		if got := condition(n, typ); got != want {
			t.Errorf("%s: %s, want %s", typ, got, want)
		}
	}

	// A slow poll interval in which nothing changes: three heartbeats, one
	// event each, and nothing for the slow poll.
	head := h.head()
	for range 3 {
		h.pass(m, 10*time.Second)
	}
	if got := h.head() - head; got != 3 {
		t.Errorf("%d events appended by three heartbeats and a slow poll that changed nothing, want 3", got)
	}

	// web is throttled for a minute: the node's condition and the pod
	// change once, then nothing more while it stays so.
	for range 2 {
		k.AddCPUPeriods(web, "web", 300, 270)
		for range 3 {
			h.pass(m, 10*time.Second)
		}
	}
	h.pass(m, 10*time.Second)
	if got := condition(h.node("worker-a"), domain.ConditionCPUThrottling); got != "True "+domain.ReasonContainersThrottled {
		t.Fatalf("CPUThrottling %s, want True %s", got, domain.ReasonContainersThrottled)
	}
	p, err := h.pods.Get(t.Context(), "shop", "web")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := p.Condition(domain.PodConditionCPUThrottled); !ok || c.Status != domain.ConditionTrue {
		t.Errorf("web's conditions %+v, want CPUThrottled True", p.Status.Conditions)
	}
	head = h.head()
	k.AddCPUPeriods(web, "web", 300, 250)
	for range 3 {
		h.pass(m, 10*time.Second)
	}
	if got := h.head() - head; got != 3 {
		t.Errorf("%d events appended while web stays throttled, want the 3 heartbeats", got)
	}
}

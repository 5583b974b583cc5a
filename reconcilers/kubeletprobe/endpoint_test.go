package kubeletprobe

import (
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
	"herd/reconcilers/reconcilerstest"
)

// TestProbesFollowTheReportedPort: a Pico that comes back on another port
// (a restarted `make run`) says so in its next status report; herd records
// the move once and probes the new port at once, rather than the port it
// registered with for ever.
func TestProbesFollowTheReportedPort(t *testing.T) {
	h := newHarness(t, Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: time.Second, Networks: loopback})
	h.register(t, "pico-01", domain.KindRP2040, closedPort(t))
	ctx := t.Context()
	if _, err := h.r.Reconcile(ctx, reconcilerstest.NodeKey("pico-01")); err != nil {
		t.Fatal(err)
	}
	if c, _ := h.condition(t, "pico-01"); c.Reason != domain.ReasonConnectionRefused {
		t.Fatalf("before the move: %+v, want connection refused", c)
	}

	addr, probes := kubelet(t, http.StatusOK)
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	report := domain.RecordHeartbeat{
		Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue, Reason: "KubeletReady"}},
		System:   &domain.ReportedSystem{KubeletPort: int32(p)},
	}
	for range 2 { // the second report repeats the port: no news
		n, err := h.w.NodeCommands().Execute(ctx, domain.Key{Name: "pico-01"}, report)
		if err != nil {
			t.Fatal(err)
		}
		if n.KubeletPort != int32(p) {
			t.Fatalf("node's kubelet port %d, want %d", n.KubeletPort, p)
		}
	}
	recs, err := h.log.ReadStream(ctx, domain.NodeStream("pico-01"), 0)
	if err != nil {
		t.Fatal(err)
	}
	moves := 0
	for _, rec := range recs {
		if rec.Type == (domain.NodeKubeletEndpointChanged{}).EventType() {
			moves++
		}
	}
	if moves != 1 {
		t.Errorf("%d NodeKubeletEndpointChanged, want 1", moves)
	}

	keys := h.r.Watches().KeysFor(events.Record{Stream: domain.NodeStream("pico-01"), Type: (domain.NodeKubeletEndpointChanged{}).EventType()})
	if len(keys) != 1 || keys[0] != reconcilerstest.NodeKey("pico-01") {
		t.Fatalf("keys for the move: %v", keys)
	}
	// Within the interval of the failed probe: the move makes it due now.
	if _, err := h.r.Reconcile(ctx, keys[0]); err != nil {
		t.Fatal(err)
	}
	if probes.Load() != 1 {
		t.Errorf("%d probes of the new port, want 1", probes.Load())
	}
	if c, _ := h.condition(t, "pico-01"); c.Status != domain.ConditionTrue {
		t.Errorf("after the move: %+v, want KubeletReachable True", c)
	}
}

package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/herdclient"
	"herd/adapters/host"
	"herd/domain"
	"herd/events/eventstest"
)

// fakeRegistry records what a presence tells herd, and fails as scripted.
type fakeRegistry struct {
	mu    sync.Mutex
	calls []string
	// fail returns the error for the nth call of op (from 1), nil for
	// success.
	fail  func(op string, n int) error
	count map[string]int
	regs  []domain.Registration
	beats []domain.Metrics
}

func (f *fakeRegistry) record(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.count == nil {
		f.count = map[string]int{}
	}
	f.count[op]++
	f.calls = append(f.calls, op)
	if f.fail != nil {
		return f.fail(op, f.count[op])
	}
	return nil
}

func (f *fakeRegistry) Register(_ context.Context, reg domain.Registration) (domain.Node, error) {
	if err := f.record("register"); err != nil {
		return domain.Node{}, err
	}
	f.mu.Lock()
	f.regs = append(f.regs, reg)
	f.mu.Unlock()
	return domain.Node{Name: reg.Name, Kind: reg.Kind}, nil
}

func (f *fakeRegistry) Heartbeat(_ context.Context, _ string, m domain.Metrics) (domain.Node, error) {
	if err := f.record("heartbeat"); err != nil {
		return domain.Node{}, err
	}
	f.mu.Lock()
	f.beats = append(f.beats, m)
	f.mu.Unlock()
	return domain.Node{}, nil
}

func (f *fakeRegistry) Deregister(context.Context, string) error { return f.record("deregister") }

func (f *fakeRegistry) Count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[op]
}

func (f *fakeRegistry) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// fakeHost is a host with fixed facts whose load rises with every read.
type fakeHost struct {
	mu    sync.Mutex
	reads int
}

func (h *fakeHost) Facts(context.Context) (host.Facts, error) {
	return host.Facts{Hostname: "zone-01.example", CPUs: 8, MemoryBytes: 32 << 30, KernelVersion: "joyent_20260301T000000Z",
		OSImage: "OmniOS r151056", OperatingSystem: "illumos", Architecture: "amd64", BootID: "42", MachineID: "m-1"}, nil
}

func (h *fakeHost) Metrics(context.Context) (domain.Metrics, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reads++
	return domain.Metrics{CPUCount: 8, Load1: float64(h.reads), MemoryTotalBytes: 32 << 30, MemoryAvailableBytes: 16 << 30,
		DiskTotalBytes: 100 << 30, DiskAvailableBytes: 50 << 30, PIDsMax: 1000, PIDsCurrent: 10}, nil
}

// eventually waits for cond with a deadline; nothing in these tests
// sleeps.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventstest.Eventually(t, eventstest.WaitFor, cond, "%s", what)
}

func testNode() NodeConfig {
	cfg := DefaultNodeConfig()
	cfg.Name, cfg.Runtime, cfg.Address = "zone-01", RuntimeIllumos, "192.0.2.10"
	cfg.ReserveCPU, cfg.ReserveMemory, cfg.MaxPods = 500, 2<<30, 50
	return cfg
}

func TestPresenceRegistersHeartbeatsAndSaysGoodbye(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	reg := &fakeRegistry{}
	jobs := func(context.Context) (int, error) { return 3, nil }
	p := NewPresence(testNode(), reg, &fakeHost{}, jobs, map[string]string{domain.LabelRuntime: domain.RuntimeAgent}, "v1", clk, zap.NewNop())
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := domain.Registration{
		Name: "zone-01", Kind: domain.KindIllumos,
		Labels: map[string]string{"kubernetes.io/hostname": "zone-01", "kubernetes.io/os": "illumos", "kubernetes.io/arch": "amd64",
			domain.LabelRuntime: domain.RuntimeAgent},
		Addresses:   []domain.Address{{Type: "Hostname", Address: "zone-01.example"}, {Type: "InternalIP", Address: "192.0.2.10"}},
		Capacity:    domain.ResourceList{"cpu": 8000, "memory": 32 << 30, "pods": 50},
		Allocatable: domain.ResourceList{"cpu": 7500, "memory": 30 << 30, "pods": 50},
		Info: domain.NodeInfo{AgentVersion: "herd-agent/v1", KernelVersion: "joyent_20260301T000000Z", OSImage: "OmniOS r151056",
			OperatingSystem: "illumos", Architecture: "amd64", BootID: "42", MachineID: "m-1", ContainerRuntimeVersion: "illumos"},
	}
	if diff := cmp.Diff([]domain.Registration{want}, reg.regs); diff != "" {
		t.Errorf("registration (-want +got):\n%s", diff)
	}
	// The registration is valid as herd's domain sees it.
	if _, err := domain.DecideNode(domain.Node{}, domain.RegisterNode{Registration: want}, clk.Now()); err != nil {
		t.Errorf("herd would refuse it: %v", err)
	}
	eventually(t, "the first heartbeat", func() bool { return len(reg.Calls()) == 2 })
	for i := 2; i <= 3; i++ {
		eventually(t, "the ticker", func() bool { return clk.HasWaiters() })
		clk.Step(10 * time.Second)
		eventually(t, fmt.Sprintf("heartbeat %d", i), func() bool { return len(reg.Calls()) == i+1 })
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"register", "heartbeat", "heartbeat", "heartbeat", "deregister"}, reg.Calls()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if len(reg.beats) != 3 || reg.beats[2].Load1 != 3 || reg.beats[2].ActiveJobs != 3 {
		t.Errorf("heartbeats %+v, want the host's latest metrics and the pods the node runs", reg.beats)
	}
}

func TestPresenceWaitsForHerdButNotForARefusal(t *testing.T) {
	down := fmt.Errorf("cannot reach herd: connection refused")
	refused := &herdclient.StatusError{Code: 422, Reason: "Invalid", Message: "metadata.name: invalid"}
	t.Run("herd not up yet", func(t *testing.T) {
		clk := clocktesting.NewFakeClock(time.Unix(0, 0))
		reg := &fakeRegistry{fail: func(op string, n int) error {
			if op == "register" && n < 3 {
				return down
			}
			return nil
		}}
		p := NewPresence(testNode(), reg, &fakeHost{}, func(context.Context) (int, error) { return 0, nil }, nil, "v1", clk, zap.NewNop())
		done := make(chan error, 1)
		go func() { done <- p.Start(t.Context()) }()
		for range 2 {
			eventually(t, "a retry timer", func() bool { return clk.HasWaiters() })
			clk.Step(registerRetry)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Stop(context.Background()) })
		if got := reg.Count("register"); got != 3 {
			t.Errorf("registered after %d attempts, want 3", got)
		}
	})
	t.Run("herd sheds the registration for load", func(t *testing.T) {
		clk := clocktesting.NewFakeClock(time.Unix(0, 0))
		shed := &herdclient.StatusError{Code: 429, Reason: "TooManyRequests", Message: "herd is behind", RetryAfter: 5 * time.Second}
		reg := &fakeRegistry{fail: func(op string, n int) error {
			if op == "register" && n < 2 {
				return shed
			}
			return nil
		}}
		p := NewPresence(testNode(), reg, &fakeHost{}, func(context.Context) (int, error) { return 0, nil }, nil, "v1", clk, zap.NewNop())
		done := make(chan error, 1)
		go func() { done <- p.Start(t.Context()) }()
		eventually(t, "a retry timer", func() bool { return clk.HasWaiters() })
		// The agent's own interval is not what herd asked for.
		clk.Step(registerRetry)
		time.Sleep(50 * time.Millisecond)
		if got := reg.Count("register"); got != 1 {
			t.Fatalf("tried again %s after a 429 that said 5 s: %d attempts", registerRetry, got)
		}
		clk.Step(5*time.Second - registerRetry)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Stop(context.Background()) })
		if got := reg.Count("register"); got != 2 {
			t.Errorf("registered after %d attempts, want 2", got)
		}
	})
	t.Run("herd refuses", func(t *testing.T) {
		reg := &fakeRegistry{fail: func(op string, _ int) error {
			if op == "register" {
				return refused
			}
			return nil
		}}
		p := NewPresence(testNode(), reg, &fakeHost{}, nil, nil, "v1", clocktesting.NewFakeClock(time.Unix(0, 0)), zap.NewNop())
		err := p.Start(t.Context())
		if !errors.Is(err, refused) || !strings.Contains(err.Error(), "metadata.name: invalid") {
			t.Errorf("%v, want herd's refusal at once", err)
		}
		if err := p.Stop(t.Context()); err != nil || len(reg.Calls()) != 1 {
			t.Errorf("a presence that never started said goodbye: %v %v", reg.Calls(), err)
		}
	})
}

func TestANodeDeletedWhileRunningRegistersAgain(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	reg := &fakeRegistry{fail: func(op string, n int) error {
		if op == "heartbeat" && n == 2 {
			return &herdclient.StatusError{Code: 404, Reason: "NotFound"}
		}
		if op == "deregister" {
			return errors.New("herd is gone")
		}
		return nil
	}}
	p := NewPresence(testNode(), reg, &fakeHost{}, func(context.Context) (int, error) { return 0, nil }, nil, "v1", clk, zap.NewNop())
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first heartbeat", func() bool { return len(reg.Calls()) == 2 && clk.HasWaiters() })
	clk.Step(10 * time.Second)
	eventually(t, "the registration again", func() bool { return len(reg.Calls()) == 5 })
	// A deregistration herd does not take is logged; the stop goes on.
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"register", "heartbeat", "heartbeat", "register", "heartbeat", "deregister"}, reg.Calls()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

package app

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/host"
	"herd/domain"
)

// scriptedServices answers each question with the next scripted answer.
type scriptedServices struct {
	mu      sync.Mutex
	answers []error // nil: every service running; an error: unreachable
	asked   [][]string
	closed  bool
}

var _ host.ServiceManager = (*scriptedServices)(nil)

func (s *scriptedServices) Services(_ context.Context, names []string) ([]domain.ServiceState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, names)
	err := s.answers[0]
	s.answers = s.answers[1:]
	out := make([]domain.ServiceState, len(names))
	for i, n := range names {
		out[i] = domain.ServiceState{Name: n, Status: domain.ServiceRunning, State: "active/running"}
		if err != nil {
			out[i] = domain.ServiceState{Name: n, Status: domain.ServiceUnknown, State: err.Error()}
		}
	}
	return out, err
}

func (s *scriptedServices) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// TestPresenceReportsWatchedServices: every heartbeat carries the
// watched services; a service manager that cannot be asked makes them
// Unknown and is logged once, when it starts and when it ends, not with
// every heartbeat; the manager is closed with the presence.
func TestPresenceReportsWatchedServices(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	reg := &fakeRegistry{}
	busDown := errors.New("cannot reach systemd over D-Bus: no such file or directory")
	mgr := &scriptedServices{answers: []error{busDown, busDown, nil, nil}}
	core, logs := observer.New(zapcore.InfoLevel)
	p := NewPresence(testNode(), reg, &fakeHost{}, func(context.Context) (int, error) { return 0, nil }, nil, "v1", clk, zap.New(core))
	p.WatchServices(mgr, []string{"nginx.service", "ssh.service"})
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 4; i++ {
		eventually(t, "the ticker", func() bool { return clk.HasWaiters() })
		clk.Step(10 * time.Second)
		eventually(t, "a heartbeat", func() bool { return reg.Count("heartbeat") == i })
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}

	reg.mu.Lock()
	var statuses [][]domain.ServiceStatus
	for _, b := range reg.beats {
		var ss []domain.ServiceStatus
		for _, s := range b.Services {
			ss = append(ss, s.Status)
		}
		statuses = append(statuses, ss)
	}
	reg.mu.Unlock()
	u, r := domain.ServiceUnknown, domain.ServiceRunning
	if diff := cmp.Diff([][]domain.ServiceStatus{{u, u}, {u, u}, {r, r}, {r, r}}, statuses); diff != "" {
		t.Errorf("services by heartbeat (-want +got):\n%s", diff)
	}
	var said []string
	for _, e := range logs.FilterMessageSnippet("watched services").All() {
		said = append(said, e.Level.String()+": "+e.Message)
	}
	want := []string{
		"warn: cannot tell the state of the watched services; herd shows them Unknown",
		"info: the state of the watched services can be told again",
	}
	if diff := cmp.Diff(want, said); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	mgr.mu.Lock()
	defer mgr.mu.Unlock()
	if !mgr.closed {
		t.Error("the service manager was not closed with the presence")
	}
}

// TestPresenceWithoutWatchedServicesReportsNone: a node that watches no
// service sends none, and herd derives no ServicesHealthy.
func TestPresenceWithoutWatchedServicesReportsNone(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	reg := &fakeRegistry{}
	p := NewPresence(testNode(), reg, &fakeHost{}, func(context.Context) (int, error) { return 0, nil }, nil, "v1", clk, zap.NewNop())
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if len(reg.beats) != 1 || reg.beats[0].Services != nil {
		t.Errorf("heartbeats %+v, want one without services", reg.beats)
	}
}

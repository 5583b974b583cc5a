package mockruntime

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func pod(annotations map[string]string) domain.Pod {
	return domain.Pod{Namespace: "default", Name: "web", UID: "uid-1", Annotations: annotations, Version: 1}
}

// action is one call on the runtime at a second of the test's clock.
type action struct {
	at int
	do func(*Runtime, domain.Pod) error
}

func provision(s int) action {
	return action{s, func(r *Runtime, p domain.Pod) error { return r.Provision(context.Background(), p) }}
}

func start(s int) action {
	return action{s, func(r *Runtime, p domain.Pod) error { _, err := r.Start(context.Background(), p); return err }}
}

func shutdown(s int) action {
	return action{s, func(r *Runtime, p domain.Pod) error { return r.Shutdown(context.Background(), p) }}
}

func halt(s int) action {
	return action{s, func(r *Runtime, p domain.Pod) error { return r.Halt(context.Background(), p) }}
}

func deprovision(s int) action {
	return action{s, func(r *Runtime, p domain.Pod) error { return r.Deprovision(context.Background(), p) }}
}

func TestLifecycle(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		annotations map[string]string
		actions     []action
		// lookAt is when the state is read, after the actions.
		lookAt      int
		wantPhase   domain.RuntimePhase
		wantHistory []Step
	}{
		{
			name:        "provisioned and started",
			actions:     []action{provision(0), start(1)},
			lookAt:      2,
			wantPhase:   domain.RuntimeRunning,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}},
		},
		{
			name:        "provisioning and starting again change nothing",
			actions:     []action{provision(0), provision(1), start(2), start(3), provision(4)},
			lookAt:      5,
			wantPhase:   domain.RuntimeRunning,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(2)}},
		},
		{
			name:        "by default a pod stops as soon as it is asked",
			actions:     []action{provision(0), start(1), shutdown(5)},
			lookAt:      5,
			wantPhase:   domain.RuntimeStopped,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpShutdown, at(5)}, {OpStopped, at(5)}},
		},
		{
			name:        "the configured delay",
			cfg:         Config{ShutdownDelay: 3 * time.Second},
			actions:     []action{provision(0), start(1), shutdown(5)},
			lookAt:      7,
			wantPhase:   domain.RuntimeRunning,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpShutdown, at(5)}},
		},
		{
			name:        "the annotation's delay, dated when it ran out",
			cfg:         Config{ShutdownDelay: 3 * time.Second},
			annotations: map[string]string{AnnotationShutdownSeconds: "10"},
			actions:     []action{provision(0), start(1), shutdown(5), shutdown(6)},
			lookAt:      20,
			wantPhase:   domain.RuntimeStopped,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpShutdown, at(5)}, {OpStopped, at(15)}},
		},
		{
			name:        "a pod that ignores shutdown runs until halted",
			annotations: map[string]string{AnnotationShutdownSeconds: "-1"},
			actions:     []action{provision(0), start(1), shutdown(5)},
			lookAt:      1000,
			wantPhase:   domain.RuntimeRunning,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpShutdown, at(5)}},
		},
		{
			name:        "halted",
			annotations: map[string]string{AnnotationShutdownSeconds: "-1"},
			actions:     []action{provision(0), start(1), shutdown(5), halt(35), halt(36)},
			lookAt:      40,
			wantPhase:   domain.RuntimeStopped,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpShutdown, at(5)}, {OpHalt, at(35)}, {OpStopped, at(35)}},
		},
		{
			name:        "a pod that stopped in time is not halted",
			annotations: map[string]string{AnnotationShutdownSeconds: "10"},
			actions:     []action{provision(0), start(1), shutdown(5), halt(35)},
			lookAt:      40,
			wantPhase:   domain.RuntimeStopped,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpShutdown, at(5)}, {OpStopped, at(15)}},
		},
		{
			name:        "a pod never started stops at once",
			cfg:         Config{ShutdownDelay: time.Minute},
			actions:     []action{provision(0), shutdown(5)},
			lookAt:      5,
			wantPhase:   domain.RuntimeStopped,
			wantHistory: []Step{{OpProvision, at(0)}, {OpShutdown, at(5)}, {OpStopped, at(5)}},
		},
		{
			name:        "deprovisioned",
			actions:     []action{provision(0), start(1), shutdown(5), deprovision(6), deprovision(7), shutdown(8), halt(9)},
			lookAt:      10,
			wantPhase:   domain.RuntimeAbsent,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpShutdown, at(5)}, {OpStopped, at(5)}, {OpDeprovision, at(6)}},
		},
		{
			name:        "deprovisioning a running pod stops it first",
			actions:     []action{provision(0), start(1), deprovision(6)},
			lookAt:      10,
			wantPhase:   domain.RuntimeAbsent,
			wantHistory: []Step{{OpProvision, at(0)}, {OpStart, at(1)}, {OpStopped, at(6)}, {OpDeprovision, at(6)}},
		},
		{
			name:        "provisioned again after it was removed",
			actions:     []action{provision(0), deprovision(1), provision(2)},
			lookAt:      3,
			wantPhase:   domain.RuntimeProvisioned,
			wantHistory: []Step{{OpProvision, at(0)}, {OpDeprovision, at(1)}, {OpProvision, at(2)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(t0)
			r, err := New(tt.cfg, clk)
			if err != nil {
				t.Fatal(err)
			}
			p := pod(tt.annotations)
			for _, a := range tt.actions {
				clk.SetTime(at(a.at))
				if err := a.do(r, p); err != nil {
					t.Fatalf("at %ds: %v", a.at, err)
				}
			}
			clk.SetTime(at(tt.lookAt))
			st, err := r.State(t.Context(), p)
			if err != nil || st.Phase != tt.wantPhase {
				t.Errorf("State = %+v, %v; want %s", st, err, tt.wantPhase)
			}
			got, ok := r.Pod("default", "web")
			if !ok {
				t.Fatal("Pod: the runtime does not know the pod")
			}
			if diff := cmp.Diff(tt.wantHistory, got.History); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		actions     []action
		last        action
		wantErr     string
	}{
		{name: "start before provisioning", last: start(1), wantErr: "pod default/web is not provisioned"},
		{name: "start after shutdown", actions: []action{provision(0), shutdown(1)}, last: start(2),
			wantErr: "is not started again"},
		{name: "malformed annotation fails provisioning", annotations: map[string]string{AnnotationShutdownSeconds: "soon"},
			last: provision(0), wantErr: `annotation mock.herd.dev/shutdown-seconds "soon": want whole seconds`},
		{name: "malformed annotation fails shutdown", annotations: map[string]string{AnnotationShutdownSeconds: "1.5"},
			last: shutdown(0), wantErr: `annotation mock.herd.dev/shutdown-seconds "1.5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(t0)
			r, err := New(Config{}, clk)
			if err != nil {
				t.Fatal(err)
			}
			p := pod(tt.annotations)
			for _, a := range tt.actions {
				if err := a.do(r, p); err != nil {
					t.Fatal(err)
				}
			}
			err = tt.last.do(r, p)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestAnotherPodOfTheSameName(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	r, err := New(Config{}, clk)
	if err != nil {
		t.Fatal(err)
	}
	old := pod(nil)
	if err := r.Provision(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	recreated := old
	recreated.UID = "uid-2"
	if st, _ := r.State(t.Context(), recreated); st.Phase != domain.RuntimeAbsent {
		t.Errorf("a recreated pod sees the old one's state %s", st.Phase)
	}
	if err := r.Shutdown(t.Context(), recreated); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.State(t.Context(), old); st.Phase != domain.RuntimeRunning {
		t.Errorf("shutting down the recreated pod touched the old one: %s", st.Phase)
	}
	if err := r.Provision(t.Context(), recreated); err != nil {
		t.Fatal(err)
	}
	got, _ := r.Pod("default", "web")
	if got.UID != "uid-2" || !cmp.Equal(got.Ops(), []Op{OpProvision}) {
		t.Errorf("after recreation: UID %s, ops %v", got.UID, got.Ops())
	}
}

func TestConfig(t *testing.T) {
	if _, err := New(Config{ShutdownDelay: -time.Second}, clocktesting.NewFakeClock(t0)); err == nil || !strings.Contains(err.Error(), "--mock-shutdown-delay") {
		t.Errorf("negative delay: %v", err)
	}
	if _, ok := (&Runtime{pods: map[string]*entry{}}).Pod("default", "nobody"); ok {
		t.Error("Pod of a pod never seen reports one")
	}
}

func TestConcurrentUse(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	r, err := New(Config{ShutdownDelay: time.Second}, clk)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		p := pod(nil)
		p.Name = "web-" + string(rune('a'+i))
		wg.Go(func() {
			ctx := t.Context()
			for range 50 {
				_ = r.Provision(ctx, p)
				_, _ = r.Start(ctx, p)
				_, _ = r.State(ctx, p)
				_ = r.Shutdown(ctx, p)
				_ = r.Halt(ctx, p)
				_ = r.Deprovision(ctx, p)
				r.Pod(p.Namespace, p.Name)
			}
		})
		wg.Go(func() { clk.Step(time.Second) })
	}
	wg.Wait()
	for i := range 8 {
		got, ok := r.Pod("default", "web-"+string(rune('a'+i)))
		if !ok || got.State.Phase != domain.RuntimeAbsent {
			t.Errorf("web-%c: %+v %v", 'a'+i, got.State, ok)
		}
	}
}

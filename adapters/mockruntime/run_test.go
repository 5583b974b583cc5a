package mockruntime

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
)

func TestRunOfCommands(t *testing.T) {
	tests := []struct {
		name    string
		command []string
		args    []string
		want    containerRun
	}{
		{"no command: the image's entrypoint", nil, nil, containerRun{}},
		{"true", []string{"true"}, nil, containerRun{ends: true}},
		{"false", []string{"/bin/sh", "-c", "false"}, nil, containerRun{code: 1, ends: true}},
		{"sleep then exit", []string{"sh", "-c"}, []string{"sleep 5; exit 3"}, containerRun{d: 5 * time.Second, code: 3, ends: true}},
		{"sleep as the command", []string{"sleep", "2.5"}, nil, containerRun{d: 2500 * time.Millisecond, ends: true}},
		{"false && more", []string{"sh", "-c", "false && sleep 9"}, nil, containerRun{code: 1, ends: true}},
		{"echo and true", []string{"sh", "-c", "echo done; true"}, nil, containerRun{ends: true}},
		{"a command the mock does not know", []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}, nil, containerRun{}},
		{"a background job", []string{"sh", "-c", "sleep 5 & exit 0"}, nil, containerRun{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runOf(domain.Container{Command: tt.command, Args: tt.args}); got != tt.want {
				t.Errorf("run %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestAPodRunsToItsEnd: a pod whose containers end exits at the end of
// the longest with the first failing code, and a start after it
// restarts them.
func TestAPodRunsToItsEnd(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	r, err := New(Config{}, clk)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := pod(nil)
	p.Spec.Containers = []domain.Container{
		{Name: "a", Command: []string{"sh", "-c", "sleep 3; exit 2"}},
		{Name: "b", Command: []string{"sleep", "5"}},
	}
	if err := r.Provision(ctx, p); err != nil {
		t.Fatal(err)
	}
	st, err := r.Start(ctx, p)
	if err != nil || !st.ExitsAt.Equal(at(5)) {
		t.Fatalf("start: %+v, %v; want it to exit at 5 s", st, err)
	}
	clk.SetTime(at(4))
	if s, _ := r.State(ctx, p); s.Phase != domain.RuntimeRunning {
		t.Errorf("at 4 s: %+v", s)
	}
	clk.SetTime(at(9))
	s, _ := r.State(ctx, p)
	want := domain.RuntimeState{Phase: domain.RuntimeExited, ExitCode: 2, FinishedAt: at(5)}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("at 9 s (-want +got):\n%s", diff)
	}
	st, err = r.Start(ctx, p)
	if err != nil || st.Restarts != 1 || !st.ExitsAt.Equal(at(14)) {
		t.Errorf("restart: %+v, %v", st, err)
	}
	got, _ := r.Pod("default", "web")
	if diff := cmp.Diff([]Op{OpProvision, OpStart, OpExited, OpStart}, got.Ops()); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

package illumos_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
)

func TestIsTransient(t *testing.T) {
	exit := func(stderr string) error {
		return &illumos.ExitError{Command: illumos.Command{Name: "zfs"}, Code: 1, Stderr: stderr}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"zoneadm lock", exit("zoneadm: zone 'herd-a': another zoneadm may have an operation in progress."), true},
		{"zfs dataset busy", exit("cannot destroy 'rpool/herd/zones/herd-a': dataset is busy"), true},
		{"zfs pool busy", exit("cannot create 'rpool/herd/zones/herd-a': pool is busy"), true},
		{"EBUSY", exit("umount: Device busy"), true},
		{"dladm object busy", exit("dladm: vnic deletion failed: object busy"), true},
		{"dladm link busy", exit("dladm: vnic creation over herdstub0 failed: link busy"), true},
		{"EAGAIN", exit("zfs: Resource temporarily unavailable"), true},
		{"no such pool", exit("cannot open 'tank': dataset does not exist"), false},
		{"bad name", exit("dladm: invalid link name 'x'"), false},
		{"not an exit", errors.New("fork/exec /usr/sbin/zoneadm: no such file or directory"), false},
		{"context", context.Canceled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := illumos.IsTransient(tt.err); got != tt.want {
				t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// runWithClock runs c through a retrying runner over host, stepping the
// fake clock whenever the runner waits, and returns the waits it made and
// the command's error.
func runWithClock(t *testing.T, host *illumostest.Host, c illumos.Command) ([]time.Duration, error) {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	var waits []time.Duration
	r := &illumos.RetryingRunner{Runner: host, Clock: clk, Retry: illumos.DefaultRetry(),
		OnRetry: func(_ illumos.Command, _ int, wait time.Duration, _ error) { waits = append(waits, wait) }}
	type result struct{ err error }
	done := make(chan result, 1)
	go func() {
		_, err := r.Run(t.Context(), c)
		done <- result{err}
	}()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case res := <-done:
			return waits, res.err
		case <-deadline:
			t.Fatal("the runner did not return")
		case <-time.After(time.Millisecond):
			if clk.HasWaiters() {
				clk.Step(illumos.DefaultRetry().MaxBackoff)
			}
		}
	}
}

func TestRetryingRunnerTriesABusyResourceAgain(t *testing.T) {
	host := illumostest.NewHost()
	create := illumos.Command{Name: "dladm", Args: []string{"create-etherstub", "herdstub0"}}
	for range 3 {
		host.FailNext("dladm create-etherstub", "dladm: etherstub creation failed: object busy")
	}
	if waits, err := runWithClock(t, host, create); err != nil {
		t.Fatalf("after three busy failures: %v, want success on the fourth attempt", err)
	} else if want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v (doubling from the backoff)", waits, want)
	}
	if n := len(host.Commands()); n != 4 {
		t.Errorf("%d commands run, want 4", n)
	}
}

func TestRetryingRunnerGivesUpWithTheCommandsMessage(t *testing.T) {
	host := illumostest.NewHost()
	for range 10 {
		host.FailNext("zoneadm -z herd-a install", "zoneadm: zone 'herd-a': another zoneadm may have an operation in progress.")
	}
	waits, err := runWithClock(t, host, illumos.Command{Name: "zoneadm", Args: []string{"-z", "herd-a", "install"}})
	if err == nil || !strings.Contains(err.Error(), "another zoneadm may have an operation in progress") || !strings.Contains(err.Error(), "after 5 attempts") {
		t.Fatalf("error %v, want the command's own message after 5 attempts", err)
	}
	var ee *illumos.ExitError
	if !errors.As(err, &ee) {
		t.Errorf("error %v does not unwrap to the command's exit", err)
	}
	if len(waits) != 4 || len(host.Commands()) != 5 {
		t.Errorf("%d waits, %d commands; want 4 and 5", len(waits), len(host.Commands()))
	}
}

func TestRetryingRunnerDoesNotRetryLastingFailures(t *testing.T) {
	host := illumostest.NewHost()
	host.FailNext("zfs list", "cannot open 'tank': dataset does not exist")
	waits, err := runWithClock(t, host, illumos.Command{Name: "zfs", Args: []string{"list", "tank"}})
	if err == nil || strings.Contains(err.Error(), "attempts") || len(waits) != 0 {
		t.Errorf("error %v after %d waits, want the failure at once", err, len(waits))
	}
}

package domain

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// t0 is when every test's story begins; at(s) is s seconds later.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// registration is a complete, valid registration of an illumos host.
func registration(name string) Registration {
	return Registration{
		Name:        name,
		UID:         "uid-" + name,
		Kind:        KindIllumos,
		Labels:      map[string]string{"herd.io/pool": "builders", "zone": "a"},
		Annotations: map[string]string{"herd.io/owner": "ops team"},
		Addresses:   []Address{{Type: "InternalIP", Address: "10.0.0.7"}, {Type: "Hostname", Address: name}},
		Capacity:    ResourceList{"cpu": 8000, "memory": 32 << 30, "pods": 40},
		Allocatable: ResourceList{"cpu": 7500, "memory": 30 << 30, "pods": 40},
		Info:        NodeInfo{AgentVersion: "herd/0.1.0", OperatingSystem: "illumos", Architecture: "amd64"},
		MaxJobs:     20,
		KubeletPort: 10250,
	}
}

// healthy are metrics well below every default threshold: memory and disk
// 50% used, PIDs 10%, load 1 on 4 CPUs.
func healthy() *Metrics {
	return &Metrics{
		CPUCount: 4, Load1: 1, Load5: 0.5, Load15: 0.25,
		MemoryTotalBytes: 1000, MemoryAvailableBytes: 500,
		DiskTotalBytes: 2000, DiskAvailableBytes: 1000,
		PIDsMax: 1000, PIDsCurrent: 100,
		ActiveJobs: 2,
	}
}

// fold applies events to n in order, as the view does.
func fold(n Node, events ...Event) Node {
	for _, e := range events {
		n = EvolveNode(n, e)
	}
	return n
}

// run decides each command in turn at the given times, folding as it goes,
// and fails the test on any rejection. It returns the node and every event.
func run(t *testing.T, n Node, steps ...step) (Node, []Event) {
	t.Helper()
	var all []Event
	for i, s := range steps {
		events, err := DecideNode(n, s.cmd, s.now)
		if err != nil {
			t.Fatalf("step %d (%T): %v", i, s.cmd, err)
		}
		n = fold(n, events...)
		all = append(all, events...)
	}
	return n, all
}

// flat is evs with each composite's parts in its place (NodeStatusChanged:
// its conditions' changes and Ready's turn), for a test that looks for
// one of those.
func flat(evs []Event) []Event {
	var out []Event
	for _, e := range evs {
		if c, ok := e.(Composite); ok {
			out = append(out, c.Parts()...)
			continue
		}
		out = append(out, e)
	}
	return out
}

// step is one command at one time, for run.
type step struct {
	cmd NodeCommand
	now time.Time
}

// registered is a node that registered at t0 and has not reported since.
func registered(name string) Node {
	return fold(Node{Name: name}, NodeRegistered{Registration: registration(name), At: t0})
}

// ready is a node that registered at t0 and sent a healthy heartbeat at
// at(10).
func ready(t *testing.T, name string) Node {
	t.Helper()
	n, _ := run(t, registered(name), step{RecordHeartbeat{Metrics: healthy()}, at(10)})
	return n
}

// checkDecision compares a decision with the wanted events or error.
func checkDecision(t *testing.T, got []Event, err error, want []Event, wantErr error) {
	t.Helper()
	if !errors.Is(err, wantErr) {
		t.Fatalf("error = %v, want %v", err, wantErr)
	}
	if err != nil && got != nil {
		t.Errorf("rejected command returned events: %v", got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// fieldErrors returns the field errors of an *InvalidError, failing the
// test for any other error.
func fieldErrors(t *testing.T, err error) []FieldError {
	t.Helper()
	if err == nil {
		return nil
	}
	var inv *InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("error %v is not an *InvalidError", err)
	}
	if !errors.Is(err, ErrInvalid) || inv.Kind != "Node" {
		t.Fatalf("InvalidError %+v: want Kind Node matching ErrInvalid", inv)
	}
	return inv.Fields
}

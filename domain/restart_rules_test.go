package domain

import (
	"slices"
	"testing"
	"time"
)

func TestSilentSinceCountsFromTheWatchersStart(t *testing.T) {
	const grace, startup = 40 * time.Second, 60 * time.Second
	start := at(900) // herd back after fifteen minutes down
	tests := []struct {
		name                    string
		last, registered, since time.Time
		now                     time.Time
		want                    bool
	}{
		{name: "silent across the restart, within the grace from the start", last: at(0), registered: at(0), since: start, now: at(940), want: false},
		{name: "silent across the restart, a grace period after the start", last: at(0), registered: at(0), since: start, now: at(941), want: true},
		{name: "never reported, registered before the start", registered: at(0), since: start, now: at(960), want: false},
		{name: "never reported, a startup grace after the start", registered: at(0), since: start, now: at(961), want: true},
		{name: "heard after the start counts from then", last: at(930), registered: at(0), since: start, now: at(971), want: true},
		{name: "no start is Silent", last: at(0), registered: at(0), now: at(41), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SilentSince(tc.last, tc.registered, tc.since, tc.now, grace, startup); got != tc.want {
				t.Errorf("SilentSince = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMarkNodeUnreachableTurnsAReportedCPUPressureUnknown(t *testing.T) {
	n := fold(ready(t, "web-01"),
		NodeConditionChanged{Type: ConditionCPUPressure, Status: ConditionTrue, Reason: ReasonHasInsufficientCPU, At: at(5)},
		NodeConditionChanged{Type: ConditionHighLoad, From: ConditionFalse, Status: ConditionTrue, Reason: ReasonHighLoad, At: at(5)})
	evs, err := DecideNode(n, MarkNodeUnreachable{LastHeard: n.LastHeartbeat}, at(60))
	if err != nil {
		t.Fatal(err)
	}
	got := map[ConditionType]ConditionStatus{}
	for _, e := range slices.Concat(flattenAll(evs)...) {
		if ch, ok := e.(NodeConditionChanged); ok {
			got[ch.Type] = ch.Status
		}
	}
	for _, c := range []ConditionType{ConditionReady, ConditionHighLoad, ConditionCPUPressure} {
		if got[c] != ConditionUnknown {
			t.Errorf("%s → %q, want Unknown; events %+v", c, got[c], evs)
		}
	}
	// A node that never reported is not given a CPUPressure it never had.
	evs, _ = DecideNode(registered("db-01"), MarkNodeUnreachable{}, at(90))
	for _, e := range slices.Concat(flattenAll(evs)...) {
		if ch, ok := e.(NodeConditionChanged); ok && ch.Type == ConditionCPUPressure {
			t.Errorf("a node that never reported was given %+v", ch)
		}
	}
}

func TestStartHealthMonitorIsAlwaysRecorded(t *testing.T) {
	f := FleetHealth{Disrupted: true, Version: 3}
	evs, err := DecideFleet(f, StartHealthMonitor{At: at(900), Nodes: 6}, at(901))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0] != (HealthMonitorStarted{At: at(900), Nodes: 6}) {
		t.Fatalf("events %+v, want one HealthMonitorStarted", evs)
	}
	if g := EvolveFleet(f, evs[0]); !g.Disrupted || g.Version != 4 {
		t.Errorf("after the start: %+v, want the disruption state kept and the version moved", g)
	}
	if _, err := DecideFleet(f, StartHealthMonitor{Nodes: 6}, at(901)); err == nil {
		t.Error("a start without a time was accepted")
	}
}

// flattenAll is each of evs with its parts (flatten).
func flattenAll(evs []Event) [][]Event {
	out := make([][]Event, len(evs))
	for i, e := range evs {
		out[i] = flatten(e)
	}
	return out
}

// flatten is ev followed by its parts when it is a composite, else ev
// alone.
func flatten(ev Event) []Event {
	c, ok := ev.(Composite)
	if !ok {
		return []Event{ev}
	}
	return append([]Event{ev}, c.Parts()...)
}

package domain

import "testing"

func TestAssessFleet(t *testing.T) {
	tests := []struct {
		name               string
		unreachable, total int
		want               bool
	}{
		{"no nodes", 0, 0, false},
		{"the only node", 1, 1, true},
		{"one of two", 1, 2, false},
		{"every node of two", 2, 2, true},
		{"two of three is 67%", 2, 3, true},
		{"five of ten is 50%", 5, 10, false},
		{"eleven of twenty is exactly 55%", 11, 20, true},
		{"none", 0, 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (AssessFleet{Unreachable: tt.unreachable, Total: tt.total}).IsDisrupted(); got != tt.want {
				t.Errorf("IsDisrupted(%d of %d) = %v, want %v", tt.unreachable, tt.total, got, tt.want)
			}
		})
	}
}

func TestDecideFleetRecordsOnlyChanges(t *testing.T) {
	var f FleetHealth
	evs, _ := DecideFleet(f, AssessFleet{Unreachable: 3, Total: 4}, at(1))
	if len(evs) != 1 {
		t.Fatalf("start of a disruption: %v", evs)
	}
	f = EvolveFleet(f, evs[0])
	if evs, _ := DecideFleet(f, AssessFleet{Unreachable: 4, Total: 4}, at(2)); len(evs) != 0 {
		t.Errorf("a lasting disruption recorded %v", evs)
	}
	evs, _ = DecideFleet(f, AssessFleet{Unreachable: 1, Total: 4}, at(3))
	if _, ok := evs[0].(FleetDisruptionEnded); len(evs) != 1 || !ok {
		t.Fatalf("end of a disruption: %v", evs)
	}
	if _, err := DecideFleet(f, AssessFleet{Unreachable: 5, Total: 4}, at(4)); err == nil {
		t.Error("more unreachable than nodes was accepted")
	}
}

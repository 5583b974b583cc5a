package domain

import (
	"strings"
	"testing"
)

func TestAssessFleet(t *testing.T) {
	tests := []struct {
		name               string
		unreachable, total int
		threshold          float64
		want               bool
	}{
		{"no nodes", 0, 0, 0, false},
		{"the only node", 1, 1, 0, true},
		{"one of two", 1, 2, 0, false},
		{"every node of two", 2, 2, 0, true},
		{"two of three is 67%, but two are too few", 2, 3, 0, false},
		{"three of four is 75%", 3, 4, 0, true},
		{"five of ten is 50%", 5, 10, 0, false},
		{"eleven of twenty is exactly 55%", 11, 20, 0, true},
		{"none", 0, 5, 0, false},
		{"three of five under a threshold of 0.7", 3, 5, 0.7, false},
		{"four of five over a threshold of 0.7", 4, 5, 0.7, true},
		{"every node under a threshold of 1", 5, 5, 1, true},
		{"two of five over a threshold of 0.4 are too few", 2, 5, 0.4, false},
		{"three of seven over a threshold of 0.4", 3, 7, 0.4, true},
		{"two of two over any threshold", 2, 2, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (AssessFleet{Unreachable: tt.unreachable, Total: tt.total, Threshold: tt.threshold}).IsDisrupted(); got != tt.want {
				t.Errorf("IsDisrupted(%d of %d, threshold %v) = %v, want %v", tt.unreachable, tt.total, tt.threshold, got, tt.want)
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

func TestDecideFleetRecordsTheThreshold(t *testing.T) {
	evs, err := DecideFleet(FleetHealth{}, AssessFleet{Unreachable: 4, Total: 5, Threshold: 0.7}, at(1))
	if err != nil || len(evs) != 1 {
		t.Fatalf("four of five at 0.7: %v, %v", evs, err)
	}
	if got := evs[0].(FleetDisruptionStarted).Threshold; got != 0.7 {
		t.Errorf("recorded threshold %v, want 0.7", got)
	}
	evs, _ = DecideFleet(FleetHealth{}, AssessFleet{Unreachable: 4, Total: 5}, at(1))
	if got := evs[0].(FleetDisruptionStarted).Threshold; got != DefaultUnhealthyThreshold {
		t.Errorf("recorded threshold %v without one given, want the default", got)
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if _, err := DecideFleet(FleetHealth{}, AssessFleet{Unreachable: 1, Total: 5, Threshold: bad}, at(1)); err == nil || !strings.Contains(err.Error(), "threshold") {
			t.Errorf("threshold %v: %v, want an error naming it", bad, err)
		}
	}
}

package domain

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPressureHoldsForTheTransitionPeriod: MemoryPressure, once True, stays
// True until memory has been under the threshold for the whole transition
// period, counted from the first report under it; a report above within
// the period starts the wait again. The decision rests on the log alone:
// folding the events from nothing gives the same node.
func TestPressureHoldsForTheTransitionPeriod(t *testing.T) {
	const period = 5 * time.Minute
	tight := healthy()
	tight.MemoryAvailableBytes = 50 // 95% used
	th := Thresholds{TransitionPeriod: period}
	beat := func(m *Metrics) RecordHeartbeat { return RecordHeartbeat{Metrics: m, Thresholds: th} }
	eased := at(40)

	steps := []struct {
		name   string
		m      *Metrics
		now    time.Time
		want   []Event // besides HeartbeatRecorded
		status ConditionStatus
	}{
		{"above: True at once", tight, at(20), []Event{NodeConditionChanged{Type: ConditionMemoryPressure, From: ConditionFalse,
			Status: ConditionTrue, Reason: ReasonHasInsufficientMemory, Message: "memory used above the 90% threshold", At: at(20)}}, ConditionTrue},
		{"under: held", healthy(), at(30), []Event{NodePressureEased{Type: ConditionMemoryPressure, At: at(30)}}, ConditionTrue},
		{"above again: the wait starts over", tight, at(35), []Event{NodePressureReturned{Type: ConditionMemoryPressure, At: at(35)}}, ConditionTrue},
		{"under again", healthy(), eased, []Event{NodePressureEased{Type: ConditionMemoryPressure, At: eased}}, ConditionTrue},
		{"under, a second short of the period", healthy(), eased.Add(period - time.Second), nil, ConditionTrue},
		{"under for the whole period: False", healthy(), eased.Add(period), []Event{NodeConditionChanged{Type: ConditionMemoryPressure,
			From: ConditionTrue, Status: ConditionFalse, Reason: ReasonHasSufficientMemory, Message: "memory used at or below the 90% threshold",
			At: eased.Add(period)}}, ConditionFalse},
		{"under, after: nothing to hold", healthy(), eased.Add(period + 10*time.Second), nil, ConditionFalse},
	}
	n := ready(t, "web-01")
	start := n
	var all []Event
	for _, s := range steps {
		evs, err := DecideNode(n, beat(s.m), s.now)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var got []Event
		for _, e := range evs {
			if _, ok := e.(HeartbeatRecorded); !ok {
				got = append(got, e)
			}
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", s.name, diff)
		}
		n = fold(n, evs...)
		all = append(all, evs...)
		if c, _ := n.Condition(ConditionMemoryPressure); c.Status != s.status {
			t.Errorf("%s: MemoryPressure %s, want %s", s.name, c.Status, s.status)
		}
	}
	if n.PressureEasedAt != nil {
		t.Errorf("after the condition cleared: eased %v, want none", n.PressureEasedAt)
	}
	if diff := cmp.Diff(n, fold(start, all...)); diff != "" {
		t.Errorf("replay differs (-live +replayed):\n%s", diff)
	}
}

// TestNoTransitionPeriodClearsAtOnce: with a period of 0 a pressure
// condition follows its signal heartbeat by heartbeat, as before.
func TestNoTransitionPeriodClearsAtOnce(t *testing.T) {
	tight := healthy()
	tight.MemoryAvailableBytes = 50
	n, _ := run(t, ready(t, "web-01"),
		step{RecordHeartbeat{Metrics: tight}, at(20)},
		step{RecordHeartbeat{Metrics: healthy()}, at(30)})
	if c, _ := n.Condition(ConditionMemoryPressure); c.Status != ConditionFalse {
		t.Errorf("MemoryPressure %s, want False at once", c.Status)
	}
}

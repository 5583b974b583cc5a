package domain

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHeartbeatSupersedes(t *testing.T) {
	metrics := &Metrics{MemoryAvailableBytes: 40}
	kubelet := &KubeletMetrics{}
	for _, tc := range []struct {
		name     string
		old, new HeartbeatRecorded
		want     bool
	}{
		{name: "plain by plain", want: true},
		{name: "metrics by metrics", old: HeartbeatRecorded{Metrics: metrics}, new: HeartbeatRecorded{Metrics: metrics}, want: true},
		{name: "plain by metrics", new: HeartbeatRecorded{Metrics: metrics}, want: true},
		{name: "metrics by plain", old: HeartbeatRecorded{Metrics: metrics}, want: false},
		{name: "kubelet by kubelet", old: HeartbeatRecorded{Kubelet: kubelet}, new: HeartbeatRecorded{Kubelet: kubelet}, want: true},
		{name: "kubelet by metrics", old: HeartbeatRecorded{Kubelet: kubelet}, new: HeartbeatRecorded{Metrics: metrics}, want: false},
		{name: "both by kubelet", old: HeartbeatRecorded{Metrics: metrics, Kubelet: kubelet}, new: HeartbeatRecorded{Kubelet: kubelet}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.new.Supersedes(tc.old); got != tc.want {
				t.Errorf("Supersedes = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSupersededHeartbeatIsStateFree folds a node's life with and without
// the heartbeats that a later one supersedes, with condition changes,
// taints and a re-registration between them, and wants the same node at
// the end and at every event after the superseding one.
func TestSupersededHeartbeatIsStateFree(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	reg := Registration{Name: "web-01", Kind: KindLinux}
	life := []Event{
		NodeRegistered{Registration: reg, At: at(0)},
		HeartbeatRecorded{At: at(1), Metrics: &Metrics{MemoryAvailableBytes: 10}},
		NodeConditionChanged{Type: ConditionReady, Status: ConditionTrue, At: at(1)},
		NodeBecameReady{At: at(1)},
		HeartbeatRecorded{At: at(11), Metrics: &Metrics{MemoryAvailableBytes: 20}},
		NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionUnknown, Inferred: true, At: at(50)},
		NodeTainted{Taint: Taint{Key: TaintUnreachable, Effect: EffectNoSchedule}},
		HeartbeatRecorded{At: at(60), Metrics: &Metrics{MemoryAvailableBytes: 30}},
		NodeConditionChanged{Type: ConditionMemoryPressure, Status: ConditionFalse, At: at(60)},
		HeartbeatRecorded{At: at(70), Metrics: &Metrics{MemoryAvailableBytes: 35}},
	}
	superseded := map[int]bool{1: true, 4: true, 7: true} // the newest (9) stays
	var whole, thinned Node
	for i, ev := range life {
		whole = EvolveNode(whole, ev)
		if !superseded[i] {
			thinned = EvolveNode(thinned, ev)
		} else {
			thinned.Version++ // the stream keeps its versions
		}
	}
	if diff := cmp.Diff(whole, thinned); diff != "" {
		t.Fatalf("node folded without superseded heartbeats differs (-whole +thinned):\n%s", diff)
	}
}

package domain

import (
	"errors"
	"testing"
)

// nodeDecide decides cmd on n and folds the result.
func nodeDecide(t *testing.T, n Node, cmd NodeCommand, s int) (Node, []Event, error) {
	t.Helper()
	evs, err := DecideNode(n, cmd, at(s))
	return fold(n, evs...), evs, err
}

func TestCordonAndUncordon(t *testing.T) {
	n := ready(t, "n1")
	n, evs, err := nodeDecide(t, n, SetNodeSchedulable{Unschedulable: true}, 10)
	if err != nil || len(evs) != 1 || !n.Unschedulable {
		t.Fatalf("cordon: %v %v unschedulable=%v", evs, err, n.Unschedulable)
	}
	if _, evs, _ := nodeDecide(t, n, SetNodeSchedulable{Unschedulable: true}, 11); len(evs) != 0 {
		t.Errorf("cordon twice appended %v", evs)
	}
	// A restart keeps the operator's cordon.
	n, _, _ = nodeDecide(t, n, RegisterNode{Registration: registration("n1")}, 12)
	if !n.Unschedulable {
		t.Errorf("a restart uncordoned the node")
	}
	n, _, _ = nodeDecide(t, n, SetNodeSchedulable{}, 13)
	if n.Unschedulable {
		t.Errorf("uncordon left the node unschedulable")
	}
	if _, _, err := nodeDecide(t, Node{Name: "ghost"}, SetNodeSchedulable{Unschedulable: true}, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("cordon an unknown node: %v", err)
	}
}

func TestTaintAndUntaint(t *testing.T) {
	n := ready(t, "n1")
	maint := Taint{Key: "maintenance", Value: "true", Effect: EffectNoSchedule}
	n, evs, err := nodeDecide(t, n, TaintNode{Taint: maint}, 10)
	if err != nil || len(evs) != 1 || !n.HasTaint("maintenance", EffectNoSchedule) || !n.Taints[0].TimeAdded.Equal(at(10)) {
		t.Fatalf("taint: %v %v %+v", evs, err, n.Taints)
	}
	if _, evs, _ := nodeDecide(t, n, TaintNode{Taint: maint}, 11); len(evs) != 0 {
		t.Errorf("the same taint twice appended %v", evs)
	}
	n, _, _ = nodeDecide(t, n, TaintNode{Taint: Taint{Key: "maintenance", Effect: EffectNoExecute}}, 12)
	n, evs, err = nodeDecide(t, n, UntaintNode{Key: "maintenance"}, 13)
	if err != nil || len(evs) != 2 || len(n.Taints) != 0 {
		t.Fatalf("untaint every effect: %v %v %+v", evs, err, n.Taints)
	}
	if _, _, err := nodeDecide(t, n, UntaintNode{Key: "maintenance", Effect: EffectNoSchedule}, 14); !errors.Is(err, ErrNotFound) {
		t.Errorf("untaint a missing taint: %v, want ErrNotFound", err)
	}
	for _, bad := range []Taint{{Key: "", Effect: EffectNoSchedule}, {Key: "k", Effect: "Never"}, {Key: "k"}, {Key: "k", Value: "not ok!", Effect: EffectNoSchedule}} {
		if _, evs, err := nodeDecide(t, n, TaintNode{Taint: bad}, 15); !errors.Is(err, ErrInvalid) || len(evs) != 0 {
			t.Errorf("taint %+v: %v %v, want ErrInvalid", bad, evs, err)
		}
	}
}

func TestSetNodeSpecDiffsTaints(t *testing.T) {
	n := ready(t, "n1")
	a := Taint{Key: "a", Value: "1", Effect: EffectNoSchedule}
	b := Taint{Key: "b", Effect: EffectNoExecute}
	n, _, _ = nodeDecide(t, n, SetNodeSpec{Taints: []Taint{a, b}}, 10)
	n, evs, err := nodeDecide(t, n, SetNodeSpec{Unschedulable: true, Taints: []Taint{{Key: "a", Value: "2", Effect: EffectNoSchedule}}}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 { // untaint b, retaint a with its new value, cordon
		t.Errorf("events %+v", evs)
	}
	if len(n.Taints) != 1 || n.Taints[0].Value != "2" || !n.Taints[0].TimeAdded.Equal(at(20)) || !n.Unschedulable {
		t.Errorf("node taints %+v unschedulable %v", n.Taints, n.Unschedulable)
	}
	if _, evs, err := nodeDecide(t, n, SetNodeSpec{Taints: []Taint{a, a}}, 21); !errors.Is(err, ErrInvalid) || len(evs) != 0 {
		t.Errorf("duplicate taints: %v %v", evs, err)
	}
}

func TestDrainLifecycle(t *testing.T) {
	n := ready(t, "n1")
	n, evs, err := nodeDecide(t, n, DrainNode{GracePeriodSeconds: ptr(int64(5))}, 10)
	if err != nil || len(evs) != 1 || n.AgentState != AgentDraining || !n.Unschedulable || *n.Drain.GracePeriodSeconds != 5 {
		t.Fatalf("drain: %v %v %+v", evs, err, n)
	}
	if _, evs, _ := nodeDecide(t, n, DrainNode{}, 11); len(evs) != 0 {
		t.Errorf("drain twice appended %v", evs)
	}
	// A crash restart while draining keeps the drain.
	n, _, _ = nodeDecide(t, n, RegisterNode{Registration: registration("n1")}, 12)
	if n.AgentState != AgentDraining {
		t.Errorf("restart moved a draining node to %s", n.AgentState)
	}
	n, _, _ = nodeDecide(t, n, MarkNodeDrained{}, 13)
	if n.AgentState != AgentDrained || !n.Unschedulable {
		t.Errorf("drained: %s unschedulable=%v", n.AgentState, n.Unschedulable)
	}
	n, _, _ = nodeDecide(t, n, UndrainNode{}, 14)
	if n.AgentState != AgentReady || n.Unschedulable || n.Drain != nil {
		t.Errorf("undrained: %s unschedulable=%v drain=%v", n.AgentState, n.Unschedulable, n.Drain)
	}
	if _, evs, _ := nodeDecide(t, n, UndrainNode{}, 15); len(evs) != 0 {
		t.Errorf("undrain of an undrained node appended %v", evs)
	}
	// kubectl drain only cordons; undrain uncordons such a node.
	cordoned, _, _ := nodeDecide(t, n, SetNodeSchedulable{Unschedulable: true}, 15)
	if back, evs, _ := nodeDecide(t, cordoned, UndrainNode{}, 16); len(evs) != 1 || back.Unschedulable {
		t.Errorf("undrain of a cordoned node: %v, unschedulable=%v", evs, back.Unschedulable)
	}
	if _, _, err := nodeDecide(t, n, DrainNode{GracePeriodSeconds: ptr(int64(-1))}, 16); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative grace: %v", err)
	}
}

package domain

import (
	"errors"
	"testing"
)

func TestMarkPodNotReady(t *testing.T) {
	p := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"})
	if _, evs, err := decidePod(t, p, MarkPodNotReady{Node: "n1"}, at(2)); err != nil || len(evs) != 0 {
		t.Errorf("a pod with no Ready condition: %v %v, want nothing", evs, err)
	}
	p, _, _ = decidePod(t, p, UpdatePodStatus{Status: PodStatus{Phase: PodRunning,
		Conditions: []PodCondition{{Type: PodConditionReady, Status: ConditionTrue, Reason: "Up", Message: "serving"}}}}, at(3))

	marked, evs, err := decidePod(t, p, MarkPodNotReady{Node: "n1"}, at(5))
	if err != nil || len(evs) != 1 || evs[0] != (PodMarkedNotReady{Node: "n1", At: at(5)}) {
		t.Fatalf("mark: %v %v", evs, err)
	}
	c, _ := marked.Condition(PodConditionReady)
	if want := (PodCondition{Type: PodConditionReady, Status: ConditionFalse, Reason: "Up", Message: "serving", LastTransitionTime: at(5)}); c != want {
		t.Errorf("Ready after the mark = %+v, want %+v: only its status and time change", c, want)
	}
	if PodReady(marked) || marked.Status.Phase != PodRunning {
		t.Errorf("marked pod: ready %v, phase %s; want not ready, still Running", PodReady(marked), marked.Status.Phase)
	}
	if _, ok := marked.Condition(PodConditionScheduled); !ok {
		t.Errorf("the mark dropped PodScheduled")
	}
	if _, evs, err := decidePod(t, marked, MarkPodNotReady{Node: "n1"}, at(6)); err != nil || len(evs) != 0 {
		t.Errorf("marking again: %v %v, want nothing", evs, err)
	}
	// Its runtime reports it Ready again once the node is back.
	back, evs, err := decidePod(t, marked, UpdatePodStatus{Status: PodStatus{Phase: PodRunning,
		Conditions: []PodCondition{{Type: PodConditionReady, Status: ConditionTrue}}}}, at(7))
	if err != nil || len(evs) != 1 || !PodReady(back) {
		t.Errorf("Ready reported again: %v %v, ready %v", evs, err, PodReady(back))
	}

	if _, _, err := decidePod(t, p, MarkPodNotReady{Node: "n2"}, at(5)); !errors.Is(err, ErrInvalid) {
		t.Errorf("a mark naming another node: %v, want ErrInvalid", err)
	}
	obs := podAfter(t, at(1), ObservePod{Namespace: "kube-system", Name: "dns", Spec: PodSpec{NodeName: "n1"},
		Status: PodStatus{Phase: PodRunning, Conditions: []PodCondition{{Type: PodConditionReady, Status: ConditionTrue}}}})
	obsMarked, evs, err := decidePod(t, obs, MarkPodNotReady{Node: "n1"}, at(5))
	if err != nil || len(evs) != 1 || PodReady(obsMarked) || !obsMarked.Observed() {
		t.Errorf("a kubelet's pod: %v %v, ready %v; want it marked, still its kubelet's", evs, err, PodReady(obsMarked))
	}
	// Its kubelet, heard again, reports it as it is.
	if back, evs, err := decidePod(t, obsMarked, ObservePod{Namespace: "kube-system", Name: "dns", Spec: PodSpec{NodeName: "n1"},
		Status: PodStatus{Phase: PodRunning, Conditions: []PodCondition{{Type: PodConditionReady, Status: ConditionTrue}}}}, at(7)); err != nil || len(evs) != 1 || !PodReady(back) {
		t.Errorf("its kubelet reports it Ready again: %v %v, ready %v", evs, err, PodReady(back))
	}
	if _, _, err := decidePod(t, Pod{Namespace: "default", Name: "gone"}, MarkPodNotReady{Node: "n1"}, at(5)); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such pod: %v, want ErrNotFound", err)
	}
}

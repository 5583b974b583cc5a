package domain

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func poolNet(ip string) PodNetwork {
	return PodNetwork{Pool: "10.88.0.0/16", IP: ip, PrefixLength: 16, Gateway: "10.88.0.1"}
}

func TestAssignPodIPShowsTheAddressAndACondition(t *testing.T) {
	p := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"})
	p, evs, err := decidePod(t, p, AssignPodIP{Network: poolNet("10.88.0.2")}, at(2))
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %v error %v", evs, err)
	}
	if p.Status.PodIP != "10.88.0.2" || p.Network == nil || *p.Network != poolNet("10.88.0.2") {
		t.Errorf("podIP %q network %+v", p.Status.PodIP, p.Network)
	}
	c, _ := p.Condition(PodConditionIPAllocated)
	want := PodCondition{Type: PodConditionIPAllocated, Status: ConditionTrue, Reason: ReasonIPAllocated, Message: "10.88.0.2 from pool 10.88.0.0/16", LastTransitionTime: at(2)}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("condition (-want +got):\n%s", diff)
	}
	if _, evs, err := decidePod(t, p, AssignPodIP{Network: poolNet("10.88.0.2")}, at(3)); err != nil || len(evs) != 0 {
		t.Errorf("same address again: events %v error %v, want none", evs, err)
	}
	if clone := p.Clone(); clone.Network == p.Network {
		t.Error("Clone shares the network")
	}
}

func TestAssignPodIPRefusals(t *testing.T) {
	bound := func() Pod { return podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"}) }
	tests := []struct {
		name string
		pod  func() Pod
		nw   PodNetwork
		want error
	}{
		{"second address", func() Pod {
			return podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"}, AssignPodIP{Network: poolNet("10.88.0.2")})
		}, poolNet("10.88.0.3"), ErrConflict},
		{"unbound", func() Pod { return podAfter(t, at(1), createPod("web")) }, poolNet("10.88.0.2"), ErrConflict},
		{"being deleted", func() Pod { return podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"}, DeletePod{}) }, poolNet("10.88.0.2"), ErrConflict},
		{"unknown pod", func() Pod { return Pod{} }, poolNet("10.88.0.2"), ErrNotFound},
		{"address outside pool", bound, poolNet("10.89.0.2"), ErrInvalid},
		{"gateway as address", bound, poolNet("10.88.0.1"), ErrInvalid},
		{"wrong gateway", bound, PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 16, Gateway: "10.88.0.254"}, ErrInvalid},
		{"wrong prefix", bound, PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 24, Gateway: "10.88.0.1"}, ErrInvalid},
		{"bad pool", bound, PodNetwork{Pool: "nope", IP: "10.88.0.2"}, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, evs, err := decidePod(t, tt.pod(), AssignPodIP{Network: tt.nw}, at(5))
			if !errors.Is(err, tt.want) || len(evs) != 0 {
				t.Errorf("events %v error %v, want %v and nothing", evs, err, tt.want)
			}
		})
	}
}

func TestMarkPodIPUnavailable(t *testing.T) {
	const msg = "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use"
	p := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"})
	p, evs, err := decidePod(t, p, MarkPodIPUnavailable{Message: msg}, at(2))
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %v error %v", evs, err)
	}
	c, _ := p.Condition(PodConditionIPAllocated)
	if c.Status != ConditionFalse || c.Reason != ReasonIPPoolExhausted || c.Message != msg || p.Status.Phase != PodPending {
		t.Errorf("condition %+v phase %s, want False %s, pending", c, ReasonIPPoolExhausted, p.Status.Phase)
	}
	if _, evs, _ := decidePod(t, p, MarkPodIPUnavailable{Message: msg}, at(3)); len(evs) != 0 {
		t.Errorf("same message again: events %v, want none", evs)
	}
	p, _, _ = decidePod(t, p, AssignPodIP{Network: poolNet("10.88.0.2")}, at(4))
	if c, _ := p.Condition(PodConditionIPAllocated); c.Status != ConditionTrue || !c.LastTransitionTime.Equal(at(4)) {
		t.Errorf("after assignment %+v, want True since 4s", c)
	}
	if _, evs, _ := decidePod(t, p, MarkPodIPUnavailable{Message: msg}, at(5)); len(evs) != 0 {
		t.Errorf("pod with an address marked unavailable: events %v, want none", evs)
	}
	if _, _, err := decidePod(t, p, MarkPodIPUnavailable{}, at(5)); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty message: error %v, want ErrInvalid", err)
	}
}

package scheduler

import (
	"fmt"
	"testing"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// TestANodeComingAndGoingLeavesPendingPodsAlone is the noise an operator
// measured: many pods pending for want of CPU while one node registers,
// turns Ready and then falls silent. Its coming and going changes nothing
// a pending pod could act on, so no pod records PodUnschedulable again.
func TestANodeComingAndGoingLeavesPendingPodsAlone(t *testing.T) {
	const pods = 50
	h := newHarness(t, Config{})
	h.node("a", small, nil)
	h.start()
	for i := range pods {
		h.pod(fmt.Sprintf("big-%02d", i), 64000, mi) // more CPU than any node has
	}
	last := fmt.Sprintf("big-%02d", pods-1)
	h.eventually(func() bool { return h.scheduledCondition(last).Reason == domain.ReasonUnschedulable },
		"the pods are marked unschedulable", func() any { return h.scheduledCondition(last) })
	marks := func() int {
		n := 0
		for i := range pods {
			n += countType(h.stream(fmt.Sprintf("big-%02d", i)), "PodUnschedulable")
		}
		return n
	}
	before := marks()
	steps := []struct {
		what string
		cmd  domain.NodeCommand
	}{
		{"registers", domain.RegisterNode{Registration: domain.Registration{Name: "b", UID: "uid-b", Kind: domain.KindLinux, Allocatable: small, Capacity: small}}},
		{"turns Ready", domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}}},
		{"falls silent", reconcilerstest.MarkSilent()},
	}
	for _, s := range steps {
		passes := h.passes()
		h.nodeCmd("b", s.cmd)
		h.eventually(func() bool { return h.passes() > passes && h.idle() }, "a pass after node b "+s.what, func() any { return h.passes() })
		if got := marks(); got != before {
			t.Errorf("after node b %s: %d more PodUnschedulable for %d pods", s.what, got-before, pods)
			before = got
		}
	}
}

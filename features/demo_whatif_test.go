package features

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"herd/cmd/herd/whatif"
	"herd/domain"
)

// TestDemoWhatIfOverFiveMinutes runs herd serve's demo fleet on herd's
// fake clock for five minutes (its nodes' pressure episodes, its
// workloads placed and run on herd's mock runtime) and asks the what-if
// with herd's own settings: over the whole log, and over a window that
// starts with the demo's pods running, it makes every decision herd made
// and no other. With demo-linux-00 drained a minute in, its pods are
// evicted and placed anew, and each placement that differs names the
// drain among its causes.
func TestDemoWhatIfOverFiveMinutes(t *testing.T) {
	w := startDemo(t)
	ctx := t.Context()
	start := w.clock.Now()
	for elapsed := demoStep; elapsed <= 5*time.Minute; elapsed += demoStep {
		now := start.Add(elapsed)
		if err := w.setClock(now); err != nil {
			t.Fatalf("at %s: %v", elapsed, err)
		}
		if err := w.demoReported(now); err != nil {
			t.Fatalf("at %s: %v", elapsed, err)
		}
		if err := w.settle(); err != nil {
			t.Fatalf("at %s: %v", elapsed, err)
		}
	}

	whole := start.Add(-time.Hour) // before herd's first event
	for _, since := range []time.Time{whole, start.Add(2*time.Minute + time.Second)} {
		rep, err := whatif.Run(ctx, w.log, whatif.Config{Since: since, Serve: w.cfg})
		if err != nil {
			t.Fatal(err)
		}
		if rep.MissingCount > 0 || rep.ExtraCount > 0 || rep.Same == 0 && since.Equal(whole) {
			t.Errorf("the what-if since %s of %d events (%d inputs) made %d decisions as herd did, but not %s, and besides %s",
				since.Format(time.TimeOnly), rep.Events, rep.Inputs, rep.Same, describeDecisions(rep.Missing), describeDecisions(rep.Extra))
		}
	}

	drainAt := start.Add(time.Minute)
	rep, err := whatif.Run(ctx, w.log, whatif.Config{Since: whole, Serve: w.cfg, Drains: []whatif.Drain{{Node: "demo-linux-00", At: drainAt}}})
	if err != nil {
		t.Fatal(err)
	}
	evicted := 0
	for _, d := range rep.Pods {
		for _, e := range d.WhatIf {
			if e.Node == "demo-linux-00" && e.By == "system:herd:drain" {
				evicted++
			}
		}
	}
	if evicted == 0 || len(rep.Placements) == 0 {
		t.Fatalf("the what-if with demo-linux-00 drained evicted %d pods from it and placed %+v anew: %+v", evicted, rep.Placements, rep.Pods)
	}
	drain := func(c whatif.Cause) bool {
		return c.Type == (domain.NodeDrainStarted{}).EventType() && c.Stream == domain.NodeStream("demo-linux-00") && c.Actor == whatif.WhatIfActor
	}
	for _, p := range rep.Placements {
		if err := placedBecauseOfTheDrain(p, drainAt, drain); err != nil {
			t.Error(err)
		}
	}
}

// placedBecauseOfTheDrain checks that a placement's causes begin with a
// placement at or after the drain and name the drain.
func placedBecauseOfTheDrain(p whatif.PlacementDifference, at time.Time, drain func(whatif.Cause) bool) error {
	if len(p.Causes) == 0 || p.Causes[0].Type != (domain.PodScheduled{}).EventType() || p.Causes[0].At.Before(at) || !slices.ContainsFunc(p.Causes, drain) {
		return fmt.Errorf("pods of %s placed on %v, would have been on %v, because %+v: want a placement after the drain, caused by it", p.Pod, p.Actual, p.WhatIf, p.Causes)
	}
	return nil
}

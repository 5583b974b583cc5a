package features

import (
	"context"
	"fmt"
	"time"

	"github.com/cucumber/godog"

	"herd/cmd/herd/whatif"
)

func (w *world) registerWhatIfSteps(sc *godog.ScenarioContext) {
	const replaying = `^replaying since (\S+) with a node-monitor-grace-period of (\S+)`
	sc.Step(replaying+` finds nothing different$`, w.whatIfNothingDifferent)
	sc.Step(replaying+`, node "([^"]+)" would have gone NotReady (\d+) times?, not (\d+)$`, w.whatIfNotReady)
	sc.Step(replaying+`, pod "([^"]+)" would have been evicted (earlier|later)$`, w.whatIfEvictedWhen)
	sc.Step(replaying+`, pod "([^"]+)" would not have been evicted$`, w.whatIfNotEvicted)
	sc.Step(replaying+` says the window crosses herd's downtime from (\S+) to (\S+)$`, w.whatIfCrossesDowntime)
}

// whatIfCrossesDowntime checks that the replay names herd's downtime, and
// only it, as an input of the window.
func (w *world) whatIfCrossesDowntime(ctx context.Context, since, grace, from, until string) error {
	rep, err := w.whatIf(ctx, since, grace)
	if err != nil {
		return err
	}
	var got []string
	for _, d := range rep.Downtimes {
		got = append(got, w.show(d.From)+" to "+w.show(d.Until))
	}
	if want := from + " to " + until; len(got) != 1 || got[0] != want {
		return fmt.Errorf("the replay names herd's downtimes %q, want exactly %q", got, want)
	}
	return nil
}

// whatIf runs herd's reconcilers again on the scenario's log since the
// time of day, with herd's settings but the grace period, as herd replay
// --what-if does.
func (w *world) whatIf(ctx context.Context, since, grace string) (whatif.Report, error) {
	from, err := w.at(since)
	if err != nil {
		return whatif.Report{}, err
	}
	cfg := whatif.Config{Since: from, Serve: w.cfg}
	if cfg.Serve.Health.GracePeriod, err = time.ParseDuration(grace); err != nil {
		return whatif.Report{}, err
	}
	return whatif.Run(ctx, w.log, cfg)
}

func (w *world) whatIfNothingDifferent(ctx context.Context, since, grace string) error {
	rep, err := w.whatIf(ctx, since, grace)
	if err != nil {
		return err
	}
	if len(rep.Nodes) > 0 || len(rep.Pods) > 0 || len(rep.Placements) > 0 || len(rep.Missing) > 0 || len(rep.Extra) > 0 || rep.Same == 0 {
		return fmt.Errorf("the what-if of %d events (%d inputs) differs: nodes %+v, pods %+v, placements %+v; decisions missing %+v, extra %+v (the same: %d)",
			rep.Events, rep.Inputs, rep.Nodes, rep.Pods, rep.Placements, rep.Missing, rep.Extra, rep.Same)
	}
	return nil
}

func (w *world) whatIfNotReady(ctx context.Context, since, grace, node string, would, did int) error {
	rep, err := w.whatIf(ctx, since, grace)
	if err != nil {
		return err
	}
	for _, d := range rep.Nodes {
		if d.Node == node {
			if len(d.WhatIf) != would || len(d.Actual) != did {
				return fmt.Errorf("node %s went NotReady at %v, would have at %v; want %d times, not %d", node, d.Actual, d.WhatIf, would, did)
			}
			return nil
		}
	}
	return fmt.Errorf("the replay finds node %s the same: %+v", node, rep.Nodes)
}

func (w *world) whatIfEvictedWhen(ctx context.Context, since, grace, pod, when string) error {
	rep, err := w.whatIf(ctx, since, grace)
	if err != nil {
		return err
	}
	for _, d := range rep.Pods {
		if d.Pod != "default/"+pod {
			continue
		}
		if len(d.Actual) == 0 || len(d.WhatIf) == 0 {
			return fmt.Errorf("pod %s: evicted %+v, would have been %+v", pod, d.Actual, d.WhatIf)
		}
		if earlier := d.WhatIf[0].At.Before(d.Actual[0].At); earlier != (when == "earlier") {
			return fmt.Errorf("pod %s was evicted at %s and would have been at %s, not %s", pod, d.Actual[0].At, d.WhatIf[0].At, when)
		}
		return nil
	}
	return fmt.Errorf("the replay finds pod %s evicted the same: %+v", pod, rep.Pods)
}

func (w *world) whatIfNotEvicted(ctx context.Context, since, grace, pod string) error {
	rep, err := w.whatIf(ctx, since, grace)
	if err != nil {
		return err
	}
	for _, d := range rep.Pods {
		if d.Pod == "default/"+pod && len(d.Actual) > 0 && len(d.WhatIf) == 0 {
			return nil
		}
	}
	return fmt.Errorf("the replay does not find that pod %s would have stayed: %+v", pod, rep.Pods)
}

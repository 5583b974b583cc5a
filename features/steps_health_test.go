package features

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
)

func (w *world) registerHealthSteps(sc *godog.ScenarioContext) {
	sc.Step(`^node "([^"]+)" has no taints$`, w.hasNoTaints)
	sc.Step(`^node "([^"]+)" has the taints:$`, w.hasTaints)
	sc.Step(`^the (\w+) condition of "([^"]+)" says "([^"]+)"$`, w.conditionSays)
	sc.Step(`^the log holds (\d+) "(\w+)" events?$`, w.logHolds)
	sc.Step(`^herd restarts$`, w.restart)
}

func (w *world) taints(name string) ([]string, error) {
	n, err := w.node(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range n.Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out, nil
}

func (w *world) hasNoTaints(name string) error {
	got, err := w.taints(name)
	if err != nil {
		return err
	}
	if len(got) > 0 {
		return fmt.Errorf("node %s has taints %s", name, strings.Join(got, ", "))
	}
	return nil
}

// hasTaints checks the node's taints against a table of key and effect, in
// any order.
func (w *world) hasTaints(name string, table *godog.Table) error {
	got, err := w.taints(name)
	if err != nil {
		return err
	}
	rows, err := tableRows(table, "key", "effect")
	if err != nil {
		return err
	}
	var want []string
	for _, r := range rows {
		want = append(want, r["key"]+":"+r["effect"])
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("taints of %s (-want +got):\n%s", name, diff)
	}
	return nil
}

func (w *world) conditionSays(condition, name, text string) error {
	n, err := w.node(name)
	if err != nil {
		return err
	}
	for _, c := range n.Status.Conditions {
		if string(c.Type) == condition {
			if !strings.Contains(c.Message, text) {
				return fmt.Errorf("%s of %s says %q, want it to contain %q", condition, name, c.Message, text)
			}
			return nil
		}
	}
	return fmt.Errorf("node %s has no %s condition", name, condition)
}

// logHolds counts the events stored as eventType. The audit log's type
// filter also lists the events that hold one among their parts (a
// HeartbeatMissed holding a turn to NotReady): those are not counted,
// so that "0 NodeBecameNotReady events" says the turn was not written
// on its own.
func (w *world) logHolds(count int, eventType string) error {
	recs, err := w.logRecords(url.Values{"type": {eventType}})
	if err != nil {
		return err
	}
	stored := slices.DeleteFunc(recs, func(r auditEvent) bool { return r.Type != eventType })
	if len(stored) != count {
		return fmt.Errorf("the log holds %d %s events, want %d", len(stored), eventType, count)
	}
	return nil
}

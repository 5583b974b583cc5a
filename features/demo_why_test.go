package features

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/httpapi"
	"herd/cmd/herd/app"
	"herd/domain"
)

// demoNodes are the nodes of a demo of four (herd serve --demo 4): two
// agents' linux nodes, an illumos one and a Pico. demo-linux-03 runs
// short of memory two minutes in every twenty, demo-illumos-01 is busy
// three in every fifteen.
var demoNodes = []string{"demo-linux-00", "demo-illumos-01", "demo-rp2040-02", "demo-linux-03"}

// demoStep is how far the clock moves at a time: the demo's report
// interval, so that each step brings one report of every node.
const demoStep = 10 * time.Second

// TestDemoWhyOverHalfAnHour runs herd serve's demo fleet on herd's fake
// clock for 30 minutes, with an operator draining one node and tainting
// another along the way, and every 30 seconds asks herd why (the
// explanation the CLI's `herd node why` and the web view show) for each
// node: every condition and taint it explains must have been made so by
// an event of the node itself, and each cause in its chain must be the
// node's own, one of its pods', their owners', or the fleet's judgement
// of itself (a disruption starting or ending, whose own cause is
// whichever node moved it) — never another node's record.
func TestDemoWhyOverHalfAnHour(t *testing.T) {
	w := startDemo(t)
	operator := map[time.Duration]func() error{
		5 * time.Minute:  func() error { return w.drains("demo-linux-00") },
		8 * time.Minute:  func() error { return w.operatorTaints("demo-illumos-01", "maintenance=true:NoExecute") },
		11 * time.Minute: func() error { return w.undrains("demo-linux-00") },
		14 * time.Minute: func() error { return w.untaints("maintenance=true:NoExecute", "demo-illumos-01") },
		20 * time.Minute: func() error { return w.operatorTaints("demo-linux-03", "dedicated=db:NoSchedule") },
	}
	start := w.clock.Now()
	asked, explained, chains := 0, map[string]int{}, map[string]string{}
	for elapsed := demoStep; elapsed <= 30*time.Minute; elapsed += demoStep {
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
		if do := operator[elapsed]; do != nil {
			if err := do(); err != nil {
				t.Fatalf("at %s, the operator: %v", elapsed, err)
			}
		}
		if elapsed%(30*time.Second) != 0 {
			continue
		}
		recs, err := w.log.ReadAfter(t.Context(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		ix := indexCauses(recs)
		for _, n := range demoNodes {
			var ex httpapi.NodeExplanation
			if err := w.get("/apis/herd.dev/v1/nodes/"+url.PathEscape(n)+"/explanation", &ex); err != nil {
				t.Fatalf("at %s: why %s: %v", elapsed, n, err)
			}
			asked++
			for _, it := range ex.Items {
				explained[it.What]++
				if c := chainText(it.Chain); len(c) > len(chains[it.What]) {
					chains[it.What] = c
				}
				if err := ix.demoWhy(n, it); err != nil {
					t.Errorf("at %s, why %s is %q: %v", elapsed, n, it.What, err)
				}
			}
		}
	}
	var what []string
	for k, v := range explained {
		what = append(what, fmt.Sprintf("%s ×%d", k, v))
	}
	slices.Sort(what)
	t.Logf("asked why %d times; explained: %s", asked, strings.Join(what, "; "))
	for k, c := range chains {
		t.Logf("%s: %s", k, c)
	}
	// The half hour must have shown something to explain: a memory
	// episode and its taint, a busy node, the drain, the operator's
	// taints.
	for _, want := range []string{"MemoryPressure is True", "tainted node.kubernetes.io/memory-pressure:NoSchedule", "CPUPressure is True",
		"agent Drained", "tainted maintenance:NoExecute", "tainted dedicated:NoSchedule"} {
		if !slices.ContainsFunc(what, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("nothing explained %q over the half hour: the demo did not do what the test relies on", want)
		}
	}
}

// demoReported waits until every demo node's report of now has reached
// herd: its Ready condition's last heartbeat is now.
func (w *world) demoReported(now time.Time) error {
	return eventually("every demo node reports at "+now.Format(time.TimeOnly), func() error {
		for _, name := range demoNodes {
			n, err := w.node(name)
			if err != nil {
				return err
			}
			i := slices.IndexFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
			if i < 0 || n.Status.Conditions[i].LastHeartbeatTime.Time.Before(now) {
				return fmt.Errorf("node %s last reported before %s", name, now.Format(time.TimeOnly))
			}
		}
		return nil
	})
}

// demoWhy holds one explained item of node to its chain: made so by an
// event of the node, and each cause the node's own, one of its pods',
// their owners', or the fleet's (after which the chain is the fleet's,
// moved by any node).
func (ix causeIndex) demoWhy(node string, it httpapi.Explanation) error {
	stream := domain.NodeStream(node)
	if len(it.Chain) == 0 {
		return fmt.Errorf("no event made it so")
	}
	if it.Chain[0].Stream != stream {
		return fmt.Errorf("made so by %s of %s, not an event of the node", it.Chain[0].Type, it.Chain[0].Stream)
	}
	for _, c := range it.Chain[1:] {
		switch {
		case c.Stream == domain.FleetHealthStream:
			return nil
		case c.Stream == stream, ix.podNode[c.Stream] == stream:
		case ix.ownsPodOn(c.Stream, stream):
		default:
			return fmt.Errorf("its chain names %s of %s by %s (%s), which is none of the node's, its pods' or their owners': chain %s",
				c.Type, c.Stream, c.Actor, c.Says, chainText(it.Chain))
		}
	}
	return nil
}

// ownsPodOn reports whether owner (a ReplicaSet, a DaemonSet, a
// Deployment through its ReplicaSet) owns a pod bound to node.
func (ix causeIndex) ownsPodOn(owner, node string) bool {
	for pod, owners := range ix.podOwners {
		if ix.podNode[pod] != node {
			continue
		}
		for _, o := range owners {
			if o == owner || slices.Contains(ix.rsOwners[o], owner) {
				return true
			}
		}
	}
	return false
}

func chainText(chain []httpapi.ExplainedEvent) string {
	var parts []string
	for _, c := range chain {
		parts = append(parts, fmt.Sprintf("%s %s by %s", c.Type, c.Stream, c.Actor))
	}
	return strings.Join(parts, " ← ")
}

// startDemo starts herd serve's demo fleet on herd's fake clock for t,
// stopped when t ends, and waits until its nodes and workloads are there
// and herd's reconcilers have settled.
func startDemo(t *testing.T) *world {
	t.Helper()
	w := &world{configure: func(cfg *app.Config) { cfg.Demo = len(demoNodes) }}
	ctx, err := w.start(t.Context(), &godog.Scenario{Name: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := w.stop(context.WithoutCancel(ctx), nil, nil); err != nil {
			t.Error(err)
		}
	})
	if err := eventually("the demo's fleet and workloads are there", func() error {
		for _, n := range demoNodes {
			if _, err := w.node(n); err != nil {
				return err
			}
		}
		var ds struct{}
		return w.get("/apis/apps/v1/namespaces/demo/daemonsets/log-shipper", &ds)
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.settle(); err != nil {
		t.Fatal(err)
	}
	return w
}

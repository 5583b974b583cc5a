package features

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
	"herd/events"

	"herd/cmd/herd/whatif"
	"herd/reconcilers/scheduler"
)

func (w *world) registerWhatIfSteps(sc *godog.ScenarioContext) {
	const replaying = `^replaying since (\S+) with a node-monitor-grace-period of (\S+)`
	sc.Step(replaying+` finds nothing different$`, w.whatIfNothingDifferent)
	sc.Step(replaying+`, node "([^"]+)" would have gone NotReady (\d+) times?, not (\d+)$`, w.whatIfNotReady)
	sc.Step(replaying+`, pod "([^"]+)" would have been evicted (earlier|later)$`, w.whatIfEvictedWhen)
	sc.Step(replaying+`, pod "([^"]+)" would not have been evicted$`, w.whatIfNotEvicted)
	sc.Step(replaying+` says the window crosses herd's downtime from (\S+) to (\S+)$`, w.whatIfCrossesDowntime)
	sc.Step(`^replaying from (\S+) until (\S+) with a node-monitor-grace-period of (\S+) finds nothing different and names no downtime of herd$`, w.whatIfUntilNoDowntime)
	sc.Step(replaying+`, listing (\d+) decisions? of each kind, lists the first and still counts them all$`, w.whatIfListsTheFirst)
	w.registerWhatIfEngineSteps(sc)
	w.registerWhatIfAPISteps(sc)
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

// whatIfUntilNoDowntime asks the what-if of a window that ends before
// herd went down: nothing differs, and the answer names no downtime (one
// after the window is none of its inputs).
func (w *world) whatIfUntilNoDowntime(ctx context.Context, since, until, grace string) error {
	from, err := w.at(since)
	if err != nil {
		return err
	}
	to, err := w.at(until)
	if err != nil {
		return err
	}
	cfg := whatif.Config{Since: from, Until: to, Serve: w.cfg}
	if cfg.Serve.Health.GracePeriod, err = time.ParseDuration(grace); err != nil {
		return err
	}
	rep, err := whatif.Run(ctx, w.log, cfg)
	if err != nil {
		return err
	}
	if len(rep.Nodes) > 0 || len(rep.Pods) > 0 || len(rep.Placements) > 0 || rep.MissingCount > 0 || rep.ExtraCount > 0 {
		return fmt.Errorf("the what-if until %s differs: nodes %+v, pods %+v, placements %+v, %d decisions missing, %d extra",
			until, rep.Nodes, rep.Pods, rep.Placements, rep.MissingCount, rep.ExtraCount)
	}
	if len(rep.Downtimes) > 0 {
		return fmt.Errorf("the what-if until %s names herd's downtimes %+v, which come after it", until, rep.Downtimes)
	}
	return nil
}

// whatIfListsTheFirst asks the what-if twice, listing as many decisions
// as it holds and then only the first n of each kind: the second lists
// the first n of the first's, and both count the same.
func (w *world) whatIfListsTheFirst(ctx context.Context, since, grace string, n int) error {
	all, err := w.whatIf(ctx, since, grace)
	if err != nil {
		return err
	}
	if all.ExtraCount <= n {
		return fmt.Errorf("the what-if makes %d decisions herd did not: too few to see %d of them listed", all.ExtraCount, n)
	}
	if len(all.Extra) != all.ExtraCount || len(all.Missing) != all.MissingCount {
		return fmt.Errorf("the default answer lists %d of %d extra and %d of %d missing decisions; want all of these few", len(all.Extra), all.ExtraCount, len(all.Missing), all.MissingCount)
	}
	from, err := w.at(since)
	if err != nil {
		return err
	}
	cfg := whatif.Config{Since: from, Serve: w.cfg, Limit: n}
	if cfg.Serve.Health.GracePeriod, err = time.ParseDuration(grace); err != nil {
		return err
	}
	cut, err := whatif.Run(ctx, w.log, cfg)
	if err != nil {
		return err
	}
	if cut.ExtraCount != all.ExtraCount || cut.MissingCount != all.MissingCount || cut.Same != all.Same {
		return fmt.Errorf("listing %d, the what-if counts %d extra, %d missing, %d the same; listing all, %d, %d, %d", n, cut.ExtraCount, cut.MissingCount, cut.Same, all.ExtraCount, all.MissingCount, all.Same)
	}
	if !cut.Truncated {
		return fmt.Errorf("listing %d of %d decisions, the answer does not say it is cut", n, all.ExtraCount)
	}
	if len(cut.Extra) != n {
		return fmt.Errorf("listing %d, the answer lists %d decisions only the what-if made", n, len(cut.Extra))
	}
	for i, d := range cut.Extra {
		if a := all.Extra[i]; d.Type != a.Type || d.Stream != a.Stream || !d.At.Equal(a.At) {
			return fmt.Errorf("listing %d, decision %d is %s on %s at %s; the full list's is %s on %s at %s", n, i, d.Type, d.Stream, d.At, a.Type, a.Stream, a.At)
		}
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
	if len(rep.Nodes) > 0 || len(rep.Pods) > 0 || len(rep.Placements) > 0 || rep.MissingCount > 0 || rep.ExtraCount > 0 || rep.Same == 0 {
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

// registerWhatIfEngineSteps binds the steps of the what-if that runs
// herd's own reconcilers: other settings, other inputs, the same
// decisions.
func (w *world) registerWhatIfEngineSteps(sc *godog.ScenarioContext) {
	sc.Step(`^ReplicaSet "([^"]+)" keeps (\d+) pods? labelled app=([\w-]+), tolerating an unreachable node for (\d+) seconds?$`, w.replicaSetKeepsTolerating)
	sc.Step(`^the what-if since (\S+) with herd's own settings makes every decision herd's reconcilers made, and no other$`, w.whatIfSameDecisions)
	sc.Step(`^the window since (\S+) holds decisions of (.+)$`, w.windowHoldsDecisionsOf)
	sc.Step(`^a client reports the pods of ReplicaSet "([^"]+)" Running$`, w.reportsReplicaSetPodsRunning)
	sc.Step(`^herd taints at most ([\d.]+) nodes a second NoExecute$`, func(ctx context.Context, rate float64) error {
		w.cfg.Health.EvictionRate = rate
		return w.restart(ctx)
	})
	sc.Step(`^pod "([^"]+)" runs on "([^"]+)", tolerating an unreachable node for (\d+) seconds$`, w.podRunsTolerating)
	sc.Step(`^herd's scheduler scores nodes RequestedToCapacityRatio, by the shape (\S+)$`, func(ctx context.Context, shape string) (err error) {
		w.cfg.Scheduler.ScoringStrategy = scheduler.RequestedToCapacityRatio
		if w.cfg.Scheduler.Shape, err = scheduler.ParseShape(shape); err != nil {
			return err
		}
		return w.restart(ctx)
	})
	sc.Step(`^herd's scheduler scores nodes (\w+)$`, func(ctx context.Context, strategy string) error {
		w.cfg.Scheduler.ScoringStrategy = strategy
		return w.restart(ctx)
	})
	sc.Step(`^the what-if since (\S+) with the scheduler scoring nodes (\w+) places pod "([^"]+)" on "([^"]+)", not "([^"]+)"$`, w.whatIfPlacesWithStrategy)
	sc.Step(`^the what-if since (\S+) with a node-eviction-rate of ([\d.]+) evicts pod "([^"]+)" from "([^"]+)" sooner$`, w.whatIfEvictsSooner)
	sc.Step(`^the what-if since (\S+) with an? (node-monitor-grace-period|unhealthy-fleet-threshold) of (\S+) evicts pods of "([^"]+)" from "([^"]+)" that herd left there, and the scheduler places them anew elsewhere$`, w.whatIfEvictsAndPlaces)
	sc.Step(`^the what-if since (\S+) with PodDisruptionBudget "([^"]+)" at maxUnavailable 0 finds that the eviction a client asked of a pod of "([^"]+)" would have been refused, and the pod stays$`, w.whatIfRefusesClientEviction)
	sc.Step(`^the what-if since (\S+) with PodDisruptionBudget "([^"]+)" at maxUnavailable 0 until (\S+) finds that the eviction a client asked of a pod of "([^"]+)" would have been refused, then granted at the client's first ask after (\S+), asking every 5 seconds$`, w.whatIfGrantsClientEvictionLater)
	sc.Step(`^the same what-if with a client that asks once finds the eviction refused, and the pod stays$`, w.whatIfClientAsksOnce)
	sc.Step(`^the what-if since (\S+) with PodDisruptionBudget "([^"]+)" at maxUnavailable 0 and the evicted pod's node failing at (\S+) finds that the client, asking again, found the pod gone otherwise$`, w.whatIfClientFindsPodGone)
	sc.Step(`^the what-if since (\S+) with PodDisruptionBudget "([^"]+)" at (minAvailable|maxUnavailable) (\d+) finds that the pods of "([^"]+)" herd evicted from "([^"]+)" (would have stayed|were evicted the same)$`, w.whatIfWithBudget)
	sc.Step(`^the what-if since (\S+) without the "([^"]+)" reconciler finds that the pods of "([^"]+)" herd evicted from "([^"]+)" would have stayed$`, w.whatIfWithoutReconciler)
	sc.Step(`^the what-if since (\S+) with a large-fleet-size-threshold of (\d+) finds that the pods of "([^"]+)" herd evicted from "([^"]+)" would have stayed$`, w.whatIfWithLargeFleetThreshold)
	sc.Step(`^herd counts a fleet of more than (\d+) nodes as large$`, func(ctx context.Context, size int) error {
		w.cfg.Health.LargeFleetThreshold = size
		return w.restart(ctx)
	})
	sc.Step(`^the what-if since (\S+) with (.+) drained at (\S+) finds ReplicaSet "([^"]+)" would have been below its desired availability for longer$`, w.whatIfLongerBelow)
	sc.Step(`^the what-if since (\S+) with (.+) failing at (\S+) marks them NotReady too, and herd would have counted the fleet disrupted$`, w.whatIfNodesFail)
	sc.Step(`^the what-if since (\S+) with "([^"]+)" drained at (\S+) evicts the pods of "([^"]+)" from it, and the scheduler places them anew elsewhere$`, w.whatIfDrained)
	sc.Step(`^the what-if since (\S+) with (herd's own settings|a node-monitor-grace-period of \S+) answers the same three times, byte for byte, nodes marked and pods evicted$`, w.whatIfAnswersTheSame)
}

// whatIfAnswersTheSame asks the same what-if three times and compares
// the whole answers as JSON, times and all: once as the machine runs it,
// once on one processor, and once on more processors than the machine
// has while other goroutines keep yielding the processor, so that the
// reconcilers' work interleaves otherwise in each. An answer that
// depends on which reconciler ran first, or how fast, shows here.
func (w *world) whatIfAnswersTheSame(ctx context.Context, since, settings string) error {
	change := func(cfg *whatif.Config) error {
		grace, ok := strings.CutPrefix(settings, "a node-monitor-grace-period of ")
		if !ok {
			return nil
		}
		var err error
		cfg.Serve.Health.GracePeriod, err = time.ParseDuration(grace)
		return err
	}
	ask := func() (whatif.Report, []byte, error) {
		rep, err := w.whatIfWith(ctx, since, change)
		if err != nil {
			return whatif.Report{}, nil, err
		}
		b, err := json.MarshalIndent(rep, "", " ")
		return rep, b, err
	}
	rep, first, err := ask()
	if err != nil {
		return err
	}
	marked, evicted := 0, 0
	for _, ts := range rep.WhatIf.NotReady {
		marked += len(ts)
	}
	for _, es := range rep.WhatIf.Evicted {
		evicted += len(es)
	}
	if marked == 0 || evicted == 0 || rep.Same == 0 {
		return fmt.Errorf("the what-if marked %d nodes, evicted %d pods and made %d decisions as herd did: the scenario does not test what it says", marked, evicted, rep.Same)
	}

	procs := runtime.GOMAXPROCS(1)
	_, second, err := ask()
	runtime.GOMAXPROCS(procs)
	if err != nil {
		return err
	}

	runtime.GOMAXPROCS(max(4, 2*runtime.NumCPU()))
	stop := make(chan struct{})
	var yielding sync.WaitGroup
	for range 3 {
		yielding.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		})
	}
	_, third, err := ask()
	close(stop)
	yielding.Wait()
	runtime.GOMAXPROCS(procs)
	if err != nil {
		return err
	}
	for _, again := range []struct {
		how    string
		answer []byte
	}{{"on one processor", second}, {"with the processor yielded", third}} {
		if d := firstDifference(first, again.answer); d != "" {
			return fmt.Errorf("the what-if asked again %s answers otherwise (%d nodes marked, %d pods evicted the first time):\n%s", again.how, marked, evicted, d)
		}
	}
	return nil
}

// firstDifference shows the first line at which two answers differ, with
// the lines around it; "" when they are the same.
func firstDifference(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	around := func(ls []string) string {
		return strings.Join(ls[max(0, i-4):min(len(ls), i+4)], "\n")
	}
	return fmt.Sprintf("line %d, first:\n%s\nagain:\n%s", i+1, around(la), around(lb))
}

// replicaSetKeepsTolerating creates a ReplicaSet whose pods tolerate an
// unreachable node for the given seconds.
func (w *world) replicaSetKeepsTolerating(name string, n int, app string, seconds int64) error {
	replicas := int32(n) //nolint:gosec // a scenario's small number
	labels := map[string]string{"app": app}
	rs := appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}},
					Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists,
						Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}}},
			},
		},
	}
	return w.writeJSON(http.MethodPost, replicaSetsPath, "application/json", rs)
}

// whatIfWith runs the what-if since the time of day on the scenario's
// log with herd's own settings, changed by change.
func (w *world) whatIfWith(ctx context.Context, since string, change func(*whatif.Config) error) (whatif.Report, error) {
	from, err := w.at(since)
	if err != nil {
		return whatif.Report{}, err
	}
	cfg := whatif.Config{Since: from, Serve: w.cfg}
	if change != nil {
		if err := change(&cfg); err != nil {
			return whatif.Report{}, err
		}
	}
	return whatif.Run(ctx, w.log, cfg)
}

// whatIfSameDecisions: with herd's own settings and inputs, every event
// a reconciler appended in the window — its type, its object and its
// effect, times and positions aside — is made again, and nothing else.
func (w *world) whatIfSameDecisions(ctx context.Context, since string) error {
	rep, err := w.whatIfWith(ctx, since, nil)
	if err != nil {
		return err
	}
	if rep.MissingCount > 0 || rep.ExtraCount > 0 || len(rep.Nodes) > 0 || len(rep.Pods) > 0 || len(rep.Placements) > 0 || len(rep.Workloads) > 0 {
		return fmt.Errorf("the what-if of %d events (%d inputs) made %d decisions as herd did, but not %s, and besides %s; nodes %+v, pods %+v, placements %+v, workloads %+v",
			rep.Events, rep.Inputs, rep.Same, describeDecisions(rep.Missing), describeDecisions(rep.Extra), rep.Nodes, rep.Pods, rep.Placements, rep.Workloads)
	}
	return nil
}

// windowHoldsDecisionsOf checks that the scenario's log holds, since the
// time of day, events of each named reconciler: that a what-if over it
// has those decisions to make again.
func (w *world) windowHoldsDecisionsOf(ctx context.Context, since, names string) error {
	from, err := w.at(since)
	if err != nil {
		return err
	}
	recs, err := w.log.Query(ctx, events.Filter{Since: from})
	if err != nil {
		return err
	}
	kinds := map[string]bool{}
	for _, r := range recs {
		kinds[r.Metadata.Actor] = true
	}
	for _, m := range quoted.FindAllStringSubmatch(names, -1) {
		if !kinds["system:herd:"+m[1]] {
			return fmt.Errorf("the window holds no decision of %s: the scenario does not test what it says", m[1])
		}
	}
	return nil
}

// reportsReplicaSetPodsRunning reports every pod of the ReplicaSet
// Running, as their nodes would: pods whose names herd drew at random.
func (w *world) reportsReplicaSetPodsRunning(name string) error {
	pods, err := w.replicaSetPods(name)
	if err != nil {
		return err
	}
	if len(pods) == 0 {
		return fmt.Errorf("ReplicaSet %s has no pods to report", name)
	}
	for _, p := range pods {
		if err := w.reportsPodPhase(p.Name, "Running"); err != nil {
			return err
		}
	}
	return w.settle()
}

func describeDecisions(ds []whatif.Decision) string {
	if len(ds) == 0 {
		return "nothing"
	}
	var s []string
	for _, d := range ds {
		s = append(s, fmt.Sprintf("%s %s by %s at %s %s", d.Type, d.Stream, d.Actor, d.At.UTC().Format(time.TimeOnly), d.Effect))
	}
	return strings.Join(s, "; ")
}

// evictedFrom are the evictions of the report's pods of owner from node,
// in one run.
func evictedFrom(diffs []whatif.PodDifference, owner, node string, whatIf bool) (n int) {
	for _, d := range diffs {
		if d.Pod != "default/"+owner+"-*" {
			continue
		}
		es := d.Actual
		if whatIf {
			es = d.WhatIf
		}
		for _, e := range es {
			if e.Node == node {
				n++
			}
		}
	}
	return n
}

// placedAnew checks that the what-if placed more pods of owner than herd
// did, none of the extra ones on node.
func placedAnew(rep whatif.Report, owner, node string) error {
	for _, d := range rep.Placements {
		if d.Pod != "default/"+owner+"-*" {
			continue
		}
		extra := slices.Clone(d.WhatIf)
		for _, n := range d.Actual {
			if i := slices.Index(extra, n); i >= 0 {
				extra = slices.Delete(extra, i, i+1)
			}
		}
		if len(extra) == 0 || len(d.WhatIf) <= len(d.Actual) || slices.Contains(extra, node) {
			return fmt.Errorf("pods of %s were placed on %v, would have been on %v: want more placements, none on %s", owner, d.Actual, d.WhatIf, node)
		}
		if len(d.Causes) == 0 {
			return fmt.Errorf("the what-if gives no causes for placing pods of %s", owner)
		}
		return nil
	}
	return fmt.Errorf("the what-if places the pods of %s as herd did: %+v", owner, rep.Placements)
}

func (w *world) whatIfEvictsAndPlaces(ctx context.Context, since, setting, value, owner, node string) error {
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) (err error) {
		if setting == "unhealthy-fleet-threshold" {
			c.Serve.Health.UnhealthyThreshold, err = strconv.ParseFloat(value, 64)
			return err
		}
		c.Serve.Health.GracePeriod, err = time.ParseDuration(value)
		return err
	})
	if err != nil {
		return err
	}
	if got := evictedFrom(rep.Pods, owner, node, true); got == 0 || evictedFrom(rep.Pods, owner, node, false) != 0 {
		return fmt.Errorf("want pods of %s evicted from %s in the what-if alone: %+v", owner, node, rep.Pods)
	}
	return placedAnew(rep, owner, node)
}

// podRunsTolerating creates a pod on node that stays on it for secs
// once the node is unreachable.
func (w *world) podRunsTolerating(name, node string, secs int64) error {
	p := basicPod(name)
	p.Spec.NodeName = node
	p.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}}
	if err := w.postPod(p); err != nil {
		return err
	}
	return w.accepted()
}

// whatIfEvictsSooner: under another eviction rate the pod, evicted from
// node by herd, is evicted from it in the what-if too, earlier.
func (w *world) whatIfEvictsSooner(ctx context.Context, since string, rate float64, pod, node string) error {
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		c.Serve.Health.EvictionRate = rate
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range rep.Pods {
		if d.Pod != "default/"+pod {
			continue
		}
		if len(d.Actual) == 1 && len(d.WhatIf) == 1 && d.Actual[0].Node == node && d.WhatIf[0].Node == node && d.WhatIf[0].At.Before(d.Actual[0].At) {
			return nil
		}
		return fmt.Errorf("pod %s evicted %+v by herd, %+v in the what-if: want from %s, sooner in the what-if", pod, d.Actual, d.WhatIf, node)
	}
	return fmt.Errorf("pod %s fares the same in the what-if: %+v", pod, rep.Pods)
}

// whatIfPlacesWithStrategy: under another scoring strategy the pod
// herd placed on one node is placed on another.
func (w *world) whatIfPlacesWithStrategy(ctx context.Context, since, strategy, pod, whatIfNode, herdNode string) error {
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		c.Serve.Scheduler.ScoringStrategy = strategy
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range rep.Placements {
		if d.Pod == "default/"+pod {
			if !slices.Equal(d.Actual, []string{herdNode}) || !slices.Equal(d.WhatIf, []string{whatIfNode}) {
				return fmt.Errorf("pod %s placed on %v by herd, %v in the what-if: want %s, and %s in the what-if", pod, d.Actual, d.WhatIf, herdNode, whatIfNode)
			}
			return nil
		}
	}
	return fmt.Errorf("pod %s is placed the same in the what-if: %+v", pod, rep.Placements)
}

// whatIfRefusesClientEviction: with the budget at maxUnavailable 0 from
// the window's start, the eviction a client asked of a pod of owner,
// which herd granted, is refused in the what-if, and the pod stays: its
// ReplicaSet makes none in its place. The client asks again every 5
// seconds to the window's end, each ask refused.
func (w *world) whatIfRefusesClientEviction(ctx context.Context, since, budget, owner string) error {
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		c.Budgets = append(c.Budgets, whatif.BudgetChange{Namespace: "default", Name: budget, MaxUnavailable: domain.Ints(0)})
		return nil
	})
	if err != nil {
		return err
	}
	e, err := refusedEviction(rep, budget, owner)
	if err != nil {
		return err
	}
	if asks := 1 + int(rep.Until.Sub(e.At)/whatif.DefaultEvictionRetry); e.GrantedAt != nil || e.Asks != asks {
		return fmt.Errorf("the refused eviction %+v: want %d asks from %s to the window's end %s, none granted", e, asks, e.At, rep.Until)
	}
	return podStays(rep, owner)
}

// refusedEviction is the report's one refused eviction: of a pod of
// owner, by budget.
func refusedEviction(rep whatif.Report, budget, owner string) (whatif.RefusedEviction, error) {
	pod := "default/" + owner + "-*"
	if len(rep.RefusedEvictions) != 1 || rep.RefusedEvictions[0].Pod != pod || rep.RefusedEvictions[0].Budget != "default/"+budget {
		return whatif.RefusedEviction{}, fmt.Errorf("the what-if refused the evictions %+v: want the one of a pod of %s, by budget %s", rep.RefusedEvictions, owner, budget)
	}
	return rep.RefusedEvictions[0], nil
}

// podStays: the evicted pod of owner stays in the what-if, so its
// ReplicaSet makes no pod in its place: a decision herd made that the
// what-if does not.
func podStays(rep whatif.Report, owner string) error {
	for _, d := range rep.Missing {
		if d.Type == (domain.PodCreated{}).EventType() && d.Stream == "pod/default/"+owner+"-*" {
			return nil
		}
	}
	return fmt.Errorf("the what-if makes every pod herd made in place of the evicted one: missing %s", describeDecisions(rep.Missing))
}

// whatIfGrantsClientEvictionLater: the budget at maxUnavailable 0 from
// the window's start and back at 1 from relaxed; the client's eviction
// is refused, asked again every 5 seconds, and granted at its first ask
// after relaxed; the pod goes and its ReplicaSet replaces it, as in
// herd, only later.
func (w *world) whatIfGrantsClientEvictionLater(ctx context.Context, since, budget, relaxed, owner, _ string) error {
	at, err := w.at(relaxed)
	if err != nil {
		return err
	}
	w.whatIfAgain = func(c *whatif.Config) error {
		c.Budgets = append(c.Budgets,
			whatif.BudgetChange{Namespace: "default", Name: budget, MaxUnavailable: domain.Ints(0)},
			whatif.BudgetChange{Namespace: "default", Name: budget, MaxUnavailable: domain.Ints(1), At: at})
		return nil
	}
	w.whatIfAgainSince, w.whatIfAgainOf = since, [2]string{budget, owner}
	rep, err := w.whatIfWith(ctx, since, w.whatIfAgain)
	if err != nil {
		return err
	}
	e, err := refusedEviction(rep, budget, owner)
	if err != nil {
		return err
	}
	asks := 1 + int(at.Sub(e.At)/whatif.DefaultEvictionRetry) + 1
	if want := e.At.Add(time.Duration(asks-1) * whatif.DefaultEvictionRetry); e.GrantedAt == nil || !e.GrantedAt.Equal(want) || e.Asks != asks {
		return fmt.Errorf("the refused eviction %+v: want it granted at %s, on ask %d", e, want, asks)
	}
	for _, d := range rep.Missing {
		if d.Type == (domain.PodCreated{}).EventType() && d.Stream == "pod/default/"+owner+"-*" {
			return fmt.Errorf("the what-if makes no pod in place of the one evicted late: missing %s", describeDecisions(rep.Missing))
		}
	}
	return nil
}

// whatIfClientFindsPodGone: the client's eviction refused by the budget
// at maxUnavailable 0, the pod's node fails in the what-if soon after;
// the health rules evict the pod (it tolerates an unreachable node for
// 10 seconds), and the client's next ask finds it gone otherwise: no ask
// is granted, and the pod does not stay.
func (w *world) whatIfClientFindsPodGone(ctx context.Context, since, budget, fails string) error {
	if len(w.evicted) == 0 {
		return errors.New("no pod was evicted in this scenario")
	}
	pod := w.evicted[len(w.evicted)-1]
	recs, err := w.log.Query(ctx, events.Filter{StreamPrefix: domain.PodAggregate.Stream("default/" + pod), Types: []string{domain.PodScheduled{}.EventType()}})
	if err != nil {
		return err
	}
	var bound domain.PodScheduled
	if len(recs) == 0 {
		return fmt.Errorf("pod %s was never bound", pod)
	}
	if err := json.Unmarshal(recs[len(recs)-1].Payload, &bound); err != nil {
		return err
	}
	at, err := w.at(fails)
	if err != nil {
		return err
	}
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		c.Budgets = append(c.Budgets, whatif.BudgetChange{Namespace: "default", Name: budget, MaxUnavailable: domain.Ints(0)})
		c.Failed = append(c.Failed, whatif.NodeFailure{Node: bound.NodeName, At: at})
		return nil
	})
	if err != nil {
		return err
	}
	e, err := refusedEviction(rep, budget, "cache")
	if err != nil {
		return err
	}
	if e.GrantedAt != nil || e.GoneAt == nil || e.Asks < 2 || !e.GoneAt.After(at) {
		return fmt.Errorf("the refused eviction %+v: want a later ask to find the pod gone after %s's failure at %s, none granted", e, bound.NodeName, at)
	}
	return nil
}

// whatIfClientAsksOnce asks the what-if before again with a client that
// asks once: refused, the pod stays to the window's end.
func (w *world) whatIfClientAsksOnce(ctx context.Context) error {
	if w.whatIfAgain == nil {
		return errors.New("no what-if asked before")
	}
	rep, err := w.whatIfWith(ctx, w.whatIfAgainSince, func(c *whatif.Config) error {
		once := time.Duration(0)
		c.EvictionRetry = &once
		return w.whatIfAgain(c)
	})
	if err != nil {
		return err
	}
	e, err := refusedEviction(rep, w.whatIfAgainOf[0], w.whatIfAgainOf[1])
	if err != nil {
		return err
	}
	if e.Asks != 1 || e.GrantedAt != nil {
		return fmt.Errorf("the refused eviction %+v: want one ask, refused", e)
	}
	return podStays(rep, w.whatIfAgainOf[1])
}

func (w *world) whatIfWithoutReconciler(ctx context.Context, since, reconciler, owner, node string) error {
	return w.whatIfKeepsPods(ctx, since, owner, node, func(c *whatif.Config) {
		c.Serve.Reconcilers.Enabled = []string{"*", "-" + reconciler}
	})
}

// whatIfWithLargeFleetThreshold asks the what-if with another size above
// which a fleet counts as large: the pods of owner herd evicted from node
// stay.
func (w *world) whatIfWithLargeFleetThreshold(ctx context.Context, since string, size int, owner, node string) error {
	return w.whatIfKeepsPods(ctx, since, owner, node, func(c *whatif.Config) {
		c.Serve.Health.LargeFleetThreshold = size
	})
}

// whatIfKeepsPods asks the what-if with change: the pods of owner herd
// evicted from node stay there.
func (w *world) whatIfKeepsPods(ctx context.Context, since, owner, node string, change func(*whatif.Config)) error {
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		change(c)
		return nil
	})
	if err != nil {
		return err
	}
	if evictedFrom(rep.Pods, owner, node, false) == 0 || evictedFrom(rep.Pods, owner, node, true) != 0 {
		return fmt.Errorf("want pods of %s evicted from %s by herd alone: %+v", owner, node, rep.Pods)
	}
	return nil
}

// whatIfWithBudget asks the what-if with the budget's minAvailable or
// maxUnavailable changed from the window's start: the pods of owner herd
// evicted from node stay in it, or are evicted as herd evicted them.
func (w *world) whatIfWithBudget(ctx context.Context, since, budget, setting string, n int, owner, node, outcome string) error {
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		b := whatif.BudgetChange{Namespace: "default", Name: budget}
		if setting == "minAvailable" {
			b.MinAvailable = domain.Ints(int32(n))
		} else {
			b.MaxUnavailable = domain.Ints(int32(n))
		}
		c.Budgets = append(c.Budgets, b)
		return nil
	})
	if err != nil {
		return err
	}
	// The change is the question's, not one of the window's inputs.
	plain, err := w.whatIfWith(ctx, since, func(*whatif.Config) error { return nil })
	if err != nil {
		return err
	}
	if rep.Inputs != plain.Inputs {
		return fmt.Errorf("with %s %s %d the what-if counts %d inputs of the window, without it %d", budget, setting, n, rep.Inputs, plain.Inputs)
	}
	herd, whatIf := evictedFrom(rep.Pods, owner, node, false), evictedFrom(rep.Pods, owner, node, true)
	if outcome == "would have stayed" && (herd == 0 || whatIf != 0) {
		return fmt.Errorf("with %s %s %d: herd evicted %d pods of %s from %s, the what-if %d; want only herd: %+v", budget, setting, n, herd, owner, node, whatIf, rep.Pods)
	}
	if outcome == "were evicted the same" && len(rep.Pods) != 0 {
		return fmt.Errorf("with %s %s %d: pods fared differently: %+v; want the same evictions", budget, setting, n, rep.Pods)
	}
	return nil
}

func (w *world) whatIfNodesFail(ctx context.Context, since, nodes, at string) error {
	when, err := w.at(at)
	if err != nil {
		return err
	}
	var names []string
	for _, m := range quoted.FindAllStringSubmatch(nodes, -1) {
		names = append(names, m[1])
	}
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		for _, n := range names {
			c.Failed = append(c.Failed, whatif.NodeFailure{Node: n, At: when})
		}
		// The step looks for one decision among all the what-if's own:
		// room to list every one of them.
		c.Limit = 10000
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range names {
		if len(rep.WhatIf.NotReady[n]) == 0 {
			return fmt.Errorf("node %s failing at %s did not go NotReady in the what-if: %+v", n, at, rep.Nodes)
		}
	}
	for _, d := range rep.Extra {
		if d.Type == "FleetDisruptionStarted" {
			return nil
		}
	}
	return fmt.Errorf("the what-if did not count the fleet disrupted: extra decisions %s", describeDecisions(rep.Extra))
}

func (w *world) whatIfDrained(ctx context.Context, since, node, at, owner string) error {
	when, err := w.at(at)
	if err != nil {
		return err
	}
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		c.Drains = append(c.Drains, whatif.Drain{Node: node, At: when})
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range rep.Pods {
		if d.Pod != "default/"+owner+"-*" {
			continue
		}
		for _, e := range d.WhatIf {
			if e.Node == node && e.By == "system:herd:drain" {
				return placedAnew(rep, owner, node)
			}
		}
	}
	return fmt.Errorf("the what-if did not drain pods of %s from %s: %+v; placed %+v; besides %s", owner, node, rep.Pods, rep.Placements, describeDecisions(rep.Extra))
}

func (w *world) whatIfLongerBelow(ctx context.Context, since, nodes, at, rs string) error {
	when, err := w.at(at)
	if err != nil {
		return err
	}
	rep, err := w.whatIfWith(ctx, since, func(c *whatif.Config) error {
		for _, m := range quoted.FindAllStringSubmatch(nodes, -1) {
			c.Drains = append(c.Drains, whatif.Drain{Node: m[1], At: when})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range rep.Workloads {
		if d.Workload == "replicaset default/"+rs {
			if d.WhatIf <= d.Actual || len(d.Causes) == 0 {
				return fmt.Errorf("ReplicaSet %s was below its desired availability for %s, would have been for %s (causes %+v): want longer, with its causes", rs, d.Actual, d.WhatIf, d.Causes)
			}
			return nil
		}
	}
	return fmt.Errorf("the what-if finds ReplicaSet %s below its desired availability as long as herd had it: %+v (herd %v, what-if %v)", rs, rep.Workloads, rep.Actual.Below, rep.WhatIf.Below)
}

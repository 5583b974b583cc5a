package features

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"herd/domain"
	"herd/events"
	"herd/events/pgtest"
	"herd/reconcilers"
)

// causeSteps is how many random steps a history takes: enough for
// nodes to fall silent and come back, fleets to be disrupted and heal,
// drains to finish and ReplicaSets to replace what they lost, while the
// test stays a matter of seconds.
const causeSteps = 200

// TestCausesOverRandomHistories drives the whole herd of `herd serve`, on
// its fake clock, through a random history (nodes registering, conditions
// turning, heartbeats going silent, operators tainting and draining,
// ReplicaSets scaling) and holds every event a reconciler wrote to its
// cause: the record whose change the decision read. HERD_CAUSE_SEED
// replays one history.
func TestCausesOverRandomHistories(t *testing.T) {
	runCauseHistory(t, nil)
}

// TestCausesOverRandomHistoriesOnPostgres is the same on PostgreSQL.
func TestCausesOverRandomHistoriesOnPostgres(t *testing.T) {
	pgtest.Server(t)
	runCauseHistory(t, func() string { return pgtest.URL(t) })
}

func causeSeed(t *testing.T) uint64 {
	if s := os.Getenv("HERD_CAUSE_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("HERD_CAUSE_SEED: %v", err)
		}
		return seed
	}
	return 20261128
}

func runCauseHistory(t *testing.T, database func() string) {
	seed := causeSeed(t)
	t.Logf("seed %d (HERD_CAUSE_SEED replays it)", seed)
	w := &world{database: database}
	ctx, err := w.start(t.Context(), &godog.Scenario{Name: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := w.stop(context.WithoutCancel(ctx), nil, nil); err != nil {
			t.Error(err)
		}
	})
	h := &history{w: w, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for i := range causeSteps {
		if err := h.step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	recs, err := w.log.ReadAfter(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	problems, checked, byType := checkCauses(recs)
	for _, p := range problems {
		t.Error(p)
	}
	exact := 0
	for _, n := range byType {
		exact += n
	}
	t.Logf("%d events, %d written by reconcilers, each checked against its cause; %d against the one change their decision read: %v",
		len(recs), checked, exact, byType)
	if checked < 50 || exact < 20 {
		t.Errorf("the history made only %d reconciler events, %d of a known cause: too few to say anything", checked, exact)
	}
	// Every kind of status the history drives is held to its cause.
	for _, typ := range []string{"ReplicaSetStatusRecorded", "PodDisruptionBudgetStatusRecorded", "DeploymentStatusRecorded",
		"JobStatusRecorded", "JobPodsCounted", "DaemonSetStatusRecorded", "PodStatusUpdated"} {
		if byType[typ] == 0 {
			t.Errorf("the history checked no %s against its cause", typ)
		}
	}
}

// history is one random history's driver.
type history struct {
	w     *world
	rng   *rand.Rand
	nodes []string
	sets  []string
	pods  int
	// spaces is how many namespaces the history made; live those not
	// deleted yet.
	spaces int
	live   []string
	// budgets is how many PodDisruptionBudgets the history made.
	budgets int
	// deployments, jobs and daemonSets are the workloads it made.
	deployments, jobs, daemonSets []string
}

// step takes one random step, as an operator, an agent or the clock
// would, and waits for herd to settle.
func (h *history) step() error {
	w, r := h.w, h.rng
	if len(h.nodes) < 2 || len(h.nodes) < 5 && r.IntN(12) == 0 {
		name := fmt.Sprintf("n%d", len(h.nodes))
		h.nodes = append(h.nodes, name)
		return w.registeredAndReady(name)
	}
	node := h.nodes[r.IntN(len(h.nodes))]
	taints := []string{"maintenance=true:NoExecute", "maintenance=true:NoSchedule", "dedicated=db:NoExecute"}
	switch k := r.IntN(28); {
	case k < 5:
		m := &w.agentFor(node).metrics
		*m = healthyMetrics()
		if r.IntN(3) == 0 {
			m.MemoryAvailableBytes = m.MemoryTotalBytes / 20
		}
		if r.IntN(4) == 0 {
			m.DiskAvailableBytes = m.DiskTotalBytes / 25
		}
		return h.heartbeat(node)
	case k < 9:
		// Time passes; some nodes report at its end, the others stay
		// silent and may be marked.
		if err := w.setClock(w.clock.Now().Add(time.Duration(5+r.IntN(40)) * time.Second)); err != nil {
			return err
		}
		for _, n := range h.nodes {
			if r.IntN(3) > 0 {
				if err := h.heartbeat(n); err != nil {
					return err
				}
			}
		}
		return nil
	case k < 11:
		return w.operatorTaints(node, taints[r.IntN(len(taints))])
	case k < 12:
		return w.untaints(taints[r.IntN(len(taints))], node)
	case k < 13:
		return w.drainsWithGrace(node, r.IntN(3))
	case k < 14:
		return w.undrains(node)
	case k < 16:
		if len(h.sets) == 0 || r.IntN(3) == 0 {
			name := fmt.Sprintf("rs%d", len(h.sets))
			h.sets = append(h.sets, name)
			return w.replicaSetKeeps(name, 1+r.IntN(3), name)
		}
		return w.replicaSetScaled(h.sets[r.IntN(len(h.sets))], r.IntN(5))
	case k < 18:
		h.pods++
		p := basicPod(fmt.Sprintf("bare%d", h.pods))
		grace := int64(r.IntN(3))
		p.Spec.TerminationGracePeriodSeconds = &grace
		return w.postPod(p)
	case k < 20:
		if h.pods == 0 {
			return nil
		}
		return w.deletesPod(fmt.Sprintf("bare%d", 1+r.IntN(h.pods)))
	case k < 22:
		return h.namespaceStep()
	case k >= 24:
		return h.workloadStep(k - 24)
	default:
		// A budget over a ReplicaSet's pods, which drains and deletions
		// then count down and back up.
		if len(h.sets) == 0 {
			return nil
		}
		h.budgets++
		return w.budgetMaxUnavailable(fmt.Sprintf("pdb%d", h.budgets), 1, h.sets[r.IntN(len(h.sets))])
	}
}

// workloadStep makes or changes a Deployment (which of kind), a Job or
// a DaemonSet, whose statuses then follow their pods and nodes.
func (h *history) workloadStep(kind int) error {
	w, r := h.w, h.rng
	switch kind {
	case 0, 1:
		if len(h.deployments) == 0 || r.IntN(2) == 0 {
			name := fmt.Sprintf("web%d", len(h.deployments))
			h.deployments = append(h.deployments, name)
			return w.deploymentRuns(name, 1+r.IntN(3), "nginx:1", 1)
		}
		return w.deploymentImageSet(h.deployments[r.IntN(len(h.deployments))], fmt.Sprintf("nginx:%d", 2+r.IntN(50)))
	case 2:
		name := fmt.Sprintf("batch%d", len(h.jobs))
		h.jobs = append(h.jobs, name)
		scripts := []string{"sleep 10", "sleep 40", "exit 1", "true"}
		return w.jobRunsToCompletions(name, scripts[r.IntN(len(scripts))], 1+r.IntN(3), 1+r.IntN(2))
	default:
		if len(h.daemonSets) == 0 || len(h.daemonSets) < 2 && r.IntN(2) == 0 {
			name := fmt.Sprintf("agent%d", len(h.daemonSets))
			h.daemonSets = append(h.daemonSets, name)
			return w.daemonSetRunsEverywhere(name, name)
		}
		return w.daemonSetGivenImage(h.daemonSets[r.IntN(len(h.daemonSets))], fmt.Sprintf("fluent-bit:%d", 4+r.IntN(50)))
	}
}

// namespaceStep makes a namespace holding a pod and a ConfigMap, or
// deletes one, which herd empties and then removes.
func (h *history) namespaceStep() error {
	w, r := h.w, h.rng
	if len(h.live) == 0 || r.IntN(2) == 0 {
		h.spaces++
		ns := fmt.Sprintf("ns%d", h.spaces)
		h.live = append(h.live, ns)
		if err := w.namespaceExists(ns); err != nil {
			return err
		}
		if err := w.configMapExistsIn("settings", ns); err != nil {
			return err
		}
		p := basicPod(ns + "/app")
		grace := int64(r.IntN(3))
		p.Spec.TerminationGracePeriodSeconds = &grace
		return w.postPod(p)
	}
	i := r.IntN(len(h.live))
	ns := h.live[i]
	h.live = append(h.live[:i], h.live[i+1:]...)
	return w.deletesNamespace(ns)
}

// heartbeat is one report of node's agent; a refusal (a node deleted) is
// part of the history, not a failure of the test.
func (h *history) heartbeat(node string) error {
	data, err := json.Marshal(map[string]any{"metrics": h.w.agentFor(node).metrics})
	if err != nil {
		return err
	}
	return h.w.write(http.MethodPost, heartbeatPath(node), "application/json", data)
}

// causeIndex is what the checks need to know of the log.
type causeIndex struct {
	byID map[string]events.Record
	// podNode is the node each pod stream was bound to; podOwners the
	// streams of its owners.
	podNode   map[string]string
	podOwners map[string][]string
	// podUID is each pod stream's UID; rsOwners the streams of each
	// ReplicaSet stream's owners (its Deployment), revOwners of each
	// ControllerRevision's (its DaemonSet or StatefulSet).
	podUID    map[string]string
	rsOwners  map[string][]string
	revOwners map[string][]string
	// podLabels are each pod stream's labels at its creation; selectors
	// each budget stream's.
	podLabels map[string]map[string]string
	selectors map[string]*domain.LabelSelector
}

// checkCauses holds every event a reconciler wrote (actor system:herd:…)
// to its cause, and returns what is wrong and how many it checked.
func checkCauses(recs []events.Record) (problems []string, checked int, exact map[string]int) {
	ix := indexCauses(recs)
	exact = map[string]int{}
	for i, rec := range recs {
		if !strings.HasPrefix(rec.Metadata.Actor, "system:herd:") {
			continue
		}
		checked++
		known, err := ix.check(recs[:i], rec)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %s at %d by %s: %v%s", rec.Type, rec.Stream, rec.Position, rec.Metadata.Actor, err, ix.trace(recs[:i], rec)))
		}
		if known {
			exact[rec.Type]++
		}
	}
	return problems, checked, exact
}

// indexCauses is what the checks need to know of recs, the log.
func indexCauses(recs []events.Record) causeIndex {
	ix := causeIndex{byID: map[string]events.Record{}, podNode: map[string]string{}, podOwners: map[string][]string{},
		podUID: map[string]string{}, rsOwners: map[string][]string{}, revOwners: map[string][]string{},
		podLabels: map[string]map[string]string{}, selectors: map[string]*domain.LabelSelector{}}
	for _, rec := range recs {
		ix.byID[rec.ID] = rec
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			continue
		}
		switch ev := ev.(type) {
		case domain.PodScheduled:
			ix.podNode[rec.Stream] = domain.NodeStream(ev.NodeName)
		case domain.PodDisruptionBudgetCreated:
			ix.selectors[rec.Stream] = ev.Spec.Selector
		case domain.PodCreated:
			ix.podLabels[rec.Stream] = ev.Labels
			ix.podUID[rec.Stream] = ev.UID
			if ev.Spec.NodeName != "" {
				// A DaemonSet's pod comes bound to its node.
				ix.podNode[rec.Stream] = domain.NodeStream(ev.Spec.NodeName)
			}
			for _, o := range ev.Owners {
				if stream, ok := ownerStream(ev.Namespace, o); ok {
					ix.podOwners[rec.Stream] = append(ix.podOwners[rec.Stream], stream)
				}
			}
		case domain.ReplicaSetCreated:
			for _, o := range ev.Owners {
				if stream, ok := ownerStream(ev.Namespace, o); ok {
					ix.rsOwners[rec.Stream] = append(ix.rsOwners[rec.Stream], stream)
				}
			}
		case domain.ControllerRevisionCreated:
			for _, o := range ev.Owners {
				if stream, ok := ownerStream(ev.Namespace, o); ok {
					ix.revOwners[rec.Stream] = append(ix.revOwners[rec.Stream], stream)
				}
			}
		}
	}
	return ix
}

// check holds rec, written by a reconciler after before, to its cause;
// known says whether the cause had to be one record in particular.
func (ix causeIndex) check(before []events.Record, rec events.Record) (known bool, err error) {
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return false, err
	}
	id := rec.Metadata.CausationID
	cause, found := ix.byID[id]
	// The health monitor's marking of a silent node answers the clock,
	// not a record: it and the taints decided with it, in the same
	// commit, name no cause.
	if id == "" && rec.Metadata.Actor == "system:herd:health" && ix.markedTogether(before, rec) {
		return false, nil
	}
	// A kubelet probe's result is the kubelet's answer at the time the
	// clock said to ask: it names no cause either.
	if id == "" && rec.Metadata.Actor == "system:herd:kubeletprobe" {
		return false, nil
	}
	if !found {
		return false, fmt.Errorf("its cause %q is no event of the log", id)
	}
	if cause.Position >= rec.Position {
		return false, fmt.Errorf("its cause %s at %d comes after it", cause.Type, cause.Position)
	}
	if _, ok := ev.(domain.PodDisruptionBudgetStatusRecorded); ok && rec.Metadata.Actor == "system:herd:disruption" {
		return true, ix.countCause(before, rec, cause)
	}
	if _, ok := ev.(domain.ReplicaSetStatusRecorded); ok && rec.Metadata.Actor == "system:herd:replicaset" {
		return true, ix.replicaSetCount(before, rec, cause)
	}
	if _, ok := ev.(domain.PodCreated); ok && rec.Metadata.Actor == "system:herd:replicaset" {
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 {
			return true, ix.replacement(before, rec, cause, owners[0])
		}
	}
	switch ev := ev.(type) {
	case domain.DeploymentStatusRecorded:
		if rec.Metadata.Actor == "system:herd:deployment" {
			return true, ix.deploymentCount(before, rec, cause)
		}
	case domain.JobStatusRecorded:
		if rec.Metadata.Actor == "system:herd:job" {
			return true, ix.ownedCount(before, rec, cause, []string{domain.JobCreated{}.EventType(), domain.JobChanged{}.EventType()})
		}
	case domain.JobPodsCounted:
		if rec.Metadata.Actor == "system:herd:job" && len(ev.Succeeded)+len(ev.Failed) > 0 {
			return true, ix.jobCounted(rec, cause, ev)
		}
	case domain.DaemonSetStatusRecorded:
		if rec.Metadata.Actor == "system:herd:daemonset" {
			return true, ix.daemonSetCount(before, rec, cause)
		}
	}
	if want, ok := ix.expected(before, rec, ev); ok {
		if want.ID != id {
			return true, fmt.Errorf("its cause is %s %s at %d (%s), want %s %s at %d (%s)", cause.Type, cause.Stream, cause.Position, says(cause),
				want.Type, want.Stream, want.Position, says(want))
		}
		return true, nil
	}
	if !ix.related(rec, cause) {
		return false, fmt.Errorf("its cause %s %s at %d by %s is none of its node's, its pods', its owners' nor an operator's", cause.Type, cause.Stream, cause.Position, cause.Metadata.Actor)
	}
	return false, nil
}

// trace is, when HERD_CAUSE_TRACE is set, the records of rec's own
// object, its pods and its ReplicaSets up to 40 before it: what a wrong
// cause is looked into with.
func (ix causeIndex) trace(before []events.Record, rec events.Record) string {
	if os.Getenv("HERD_CAUSE_TRACE") == "" {
		return ""
	}
	var b strings.Builder
	n := 0
	for i := len(before) - 1; i >= 0 && n < 40; i-- {
		r := before[i]
		if r.Stream == rec.Stream || slices.Contains(ix.podOwners[r.Stream], rec.Stream) || slices.Contains(ix.rsOwners[r.Stream], rec.Stream) ||
			ix.podNode[rec.Stream] != "" && r.Stream == ix.podNode[rec.Stream] && r.Type != "HeartbeatRecorded" {
			fmt.Fprintf(&b, "\n\t\t%d %s %s by %s cause %s (%s)", r.Position, r.Type, r.Stream, r.Metadata.Actor, r.Metadata.CausationID, says(r))
			n++
		}
	}
	return b.String()
}

// expected is the cause rec must name, where the decision that wrote it
// read one change in particular.
func (ix causeIndex) expected(before []events.Record, rec events.Record, ev domain.Event) (events.Record, bool) {
	if rec.Metadata.Actor == "system:herd:namespace" {
		// Emptying a deleted namespace, and removing it at the end, is
		// the doing of its deletion's request.
		return newest(before, domain.NamespaceStream(namespaceOf(rec.Stream)), func(e domain.Event) bool {
			_, ok := e.(domain.NamespaceTerminating)
			return ok
		})
	}
	switch ev := ev.(type) {
	case domain.NodeTainted:
		if rec.Metadata.Actor == "system:herd:health" {
			return ix.conditionTurn(before, rec.Stream, ev.Taint.Key, ev.Taint.Effect)
		}
	case domain.NodeUntainted:
		if rec.Metadata.Actor == "system:herd:health" {
			return ix.conditionTurn(before, rec.Stream, ev.Key, ev.Effect)
		}
	case domain.NodeDrained:
		return newest(before, rec.Stream, func(e domain.Event) bool { _, ok := e.(domain.NodeDrainStarted); return ok })
	case domain.PodScheduled, domain.PodUnschedulable:
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:daemonset" {
			// A DaemonSet's pod is made bound to its node, for what
			// the DaemonSet asks.
			return newestOf(before, owners[0], []string{domain.DaemonSetCreated{}.EventType(), domain.DaemonSetChanged{}.EventType()})
		}
		return newest(before, rec.Stream, func(e domain.Event) bool { _, ok := e.(domain.PodCreated); return ok })
	case domain.ReplicaSetCreated, domain.ReplicaSetChanged:
		if owners := ix.rsOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:deployment" {
			// A Deployment's rollout follows what it asks for.
			return newestOf(before, owners[0], []string{domain.DeploymentCreated{}.EventType(), domain.DeploymentChanged{}.EventType()})
		}
	case domain.PodStatusUpdated:
		if rec.Metadata.Actor == "system:herd:zones" && ev.Status.Phase == domain.PodRunning {
			return ix.startGate(before, rec.Stream), true
		}
	case domain.PodDisruptionGranted:
		if rec.Metadata.Actor == "system:herd:drain" {
			// A budget's grant is asked for by the eviction, in its
			// unit of work: the drain of the evicted pod's node.
			node := ix.podNode[domain.PodStream(namespaceOf(rec.Stream), ev.Pod)]
			return newest(before, node, func(e domain.Event) bool { _, ok := e.(domain.NodeDrainStarted); return ok })
		}
	case domain.PodDisruptionTargeted, domain.PodDeletionRequested:
		node := ix.podNode[rec.Stream]
		switch rec.Metadata.Actor {
		case "system:herd:drain":
			return newest(before, node, func(e domain.Event) bool { _, ok := e.(domain.NodeDrainStarted); return ok })
		case "system:herd:noexecute":
			// The taint it does not tolerate: any NoExecute taint of
			// its node that is still on it.
			cause := ix.byID[rec.Metadata.CausationID]
			if t, ok := decoded(cause).(domain.NodeTainted); ok && cause.Stream == node && t.Taint.Effect == domain.EffectNoExecute {
				return cause, true
			}
			return events.Record{ID: "a NoExecute NodeTainted of " + node, Type: "NodeTainted", Stream: node}, true
		}
	}
	return events.Record{}, false
}

// replacement holds a pod a ReplicaSet created to what it asked for: its
// last change of spec or scale, or a later loss of one of the pods it
// controlled made by another (an eviction, a stop, a label taken off),
// which the new pod replaces. Which lost pod's depends on when the pods
// were read, so any such loss after its last change of spec and before
// the pod is.
func (ix causeIndex) replacement(before []events.Record, rec, cause events.Record, owner string) error {
	specs := []string{domain.ReplicaSetCreated{}.EventType(), domain.ReplicaSetChanged{}.EventType()}
	last, _ := newestOf(before, owner, specs)
	switch {
	case cause.Stream == owner:
		if cause.ID != last.ID {
			return fmt.Errorf("its cause is %s at %d, want its ReplicaSet's last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
		}
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s %s at %d is older than its ReplicaSet's last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s %s at %d is a pod change of its ReplicaSet's own", cause.Type, cause.Stream, cause.Position)
	case !slices.Contains(reconcilers.PodLossChanges, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], owner):
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its ReplicaSet's spec nor the loss of a pod it owned", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// budgetChanges are a budget's changes that its count reads; podCounts
// a pod's.
var (
	budgetChanges = []string{domain.PodDisruptionBudgetCreated{}.EventType(), domain.PodDisruptionBudgetChanged{}.EventType(),
		domain.PodDisruptionGranted{}.EventType()}
	podCounts = []string{domain.PodCreated{}.EventType(), domain.PodOwnersChanged{}.EventType(), domain.PodMetadataChanged{}.EventType(),
		domain.PodStatusUpdated{}.EventType(), domain.PodStopped{}.EventType(), domain.PodDeletionRequested{}.EventType()}
)

// countCause holds a budget's status to the change of what it counted
// that made it so: a change of the budget itself no older than its last
// one (the status is written on the budget as read), or a later change
// of the count of a pod the budget selects, or of the scale of a
// ReplicaSet that owns one. Which pod's change it is
// depends on when the reconciler read the pods, which the log does not
// say (nor whether a pod finalized just before the status was still
// there when they were read), so any of theirs after the budget's last
// change is its cause; a pod the budget does not select, an unrelated
// change (a ReplicaSet's, a scheduling) or one older than the budget's
// own last change is not.
func (ix causeIndex) countCause(before []events.Record, rec, cause events.Record) error {
	last, _ := newestOf(before, rec.Stream, budgetChanges)
	if cause.Position < last.Position {
		return fmt.Errorf("its cause %s %s at %d is older than its budget's last change %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	}
	if cause.Stream == rec.Stream && slices.Contains(budgetChanges, cause.Type) {
		return nil
	}
	sel := ix.selectors[rec.Stream]
	if _, ok := decoded(cause).(domain.ReplicaSetChanged); ok && sel != nil {
		// The scale of a ReplicaSet whose pods it selects: the pods
		// it expects.
		for pod, owners := range ix.podOwners {
			if slices.Contains(owners, cause.Stream) && sel.Matches(ix.podLabels[pod]) {
				return nil
			}
		}
	}
	if !slices.Contains(podCounts, cause.Type) || namespaceOf(cause.Stream) != namespaceOf(rec.Stream) || sel == nil || !sel.Matches(ix.podLabels[cause.Stream]) {
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its budget nor of the count of a pod it selects", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// replicaSetCount holds a ReplicaSet's status to what moved it: its
// last change of spec or scale (a new generation, the pods it created or
// deleted for it, which follow that change), or a later change of the
// count of a pod it owns made by another (one turning ready, stopping,
// evicted). Which pod's depends on when the pods were read, which the
// log does not say, so any such change after its last change of spec is.
func (ix causeIndex) replicaSetCount(before []events.Record, rec, cause events.Record) error {
	specs := []string{domain.ReplicaSetCreated{}.EventType(), domain.ReplicaSetChanged{}.EventType()}
	last, _ := newestOf(before, rec.Stream, specs)
	switch {
	case cause.Stream == rec.Stream:
		if cause.ID != last.ID {
			return fmt.Errorf("its cause is %s at %d, want its last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
		}
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s %s at %d is older than its last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s %s at %d is a pod change of its own, which follows its spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case !slices.Contains(podCounts, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], rec.Stream):
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its spec nor of the count of a pod it owns", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// ownerStream is the stream of an owner of a namespaced object in ns,
// for the kinds whose statuses the checks follow.
func ownerStream(ns string, o domain.OwnerReference) (string, bool) {
	switch o.Kind {
	case "ReplicaSet":
		return domain.ReplicaSetStream(ns, o.Name), true
	case "Deployment":
		return domain.DeploymentStream(ns, o.Name), true
	case "Job":
		return domain.JobStream(ns, o.Name), true
	case "DaemonSet":
		return domain.DaemonSetStream(ns, o.Name), true
	case "StatefulSet":
		return domain.StatefulSetStream(ns, o.Name), true
	}
	return "", false
}

// ownedCount holds a workload's status counted from its pods (a Job's,
// a DaemonSet's) to what moved it, as replicaSetCount does: its last
// change of spec (specs), or a later change of the count of a pod it
// owns made by another than its own reconciler (its own creations and
// deletions follow its spec, and the status written with them counts
// them already).
func (ix causeIndex) ownedCount(before []events.Record, rec, cause events.Record, specs []string) error {
	last, _ := newestOf(before, rec.Stream, specs)
	switch {
	case cause.Stream == rec.Stream:
		if cause.ID != last.ID {
			return fmt.Errorf("its cause is %s at %d, want its last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
		}
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s %s at %d is older than its last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s %s at %d is a pod change of its own, which follows its spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case !slices.Contains(podCounts, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], rec.Stream):
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its spec nor of the count of a pod it owns", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// fitChanges are a node's changes that move whether a DaemonSet's pod
// should run on it.
var fitChanges = []string{domain.NodeRegistered{}.EventType(), domain.NodeTainted{}.EventType(), domain.NodeUntainted{}.EventType(),
	domain.NodeLabelsChanged{}.EventType()}

// daemonSetCount holds a DaemonSet's status to what moved it: what
// ownedCount accepts, or a later change of the fit of a node on which
// one of its pods was made or deleted after that change and before the
// status (a node come, a taint put on or taken off: the DaemonSet's
// own deletion, or one the taint's eviction made first).
func (ix causeIndex) daemonSetCount(before []events.Record, rec, cause events.Record) error {
	specs := []string{domain.DaemonSetCreated{}.EventType(), domain.DaemonSetChanged{}.EventType()}
	if !strings.HasPrefix(cause.Stream, "node/") || !slices.Contains(fitChanges, cause.Type) {
		return ix.ownedCount(before, rec, cause, specs)
	}
	if last, _ := newestOf(before, rec.Stream, specs); cause.Position < last.Position {
		return fmt.Errorf("its cause %s %s at %d is older than its last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	}
	for i := len(before) - 1; i >= 0 && before[i].Position > cause.Position; i-- {
		b := before[i]
		if ix.podNode[b.Stream] == cause.Stream && slices.Contains(ix.podOwners[b.Stream], rec.Stream) &&
			(b.Type == domain.PodCreated{}.EventType() || b.Type == domain.PodDeletionRequested{}.EventType()) {
			return nil
		}
	}
	return fmt.Errorf("its cause %s %s at %d (%s) is a node it made or deleted no pod on since", cause.Type, cause.Stream, cause.Position, says(cause))
}

// deploymentCount holds a Deployment's status to what moved it: its last
// change of spec, or a later change of the spec or status of a
// ReplicaSet it owns made by another than its own reconciler (the
// ReplicaSets it rolls follow its spec, and the status written with them
// counts them already).
func (ix causeIndex) deploymentCount(before []events.Record, rec, cause events.Record) error {
	last, _ := newestOf(before, rec.Stream, []string{domain.DeploymentCreated{}.EventType(), domain.DeploymentChanged{}.EventType()})
	rsChanges := []string{domain.ReplicaSetCreated{}.EventType(), domain.ReplicaSetChanged{}.EventType(), domain.ReplicaSetStatusRecorded{}.EventType()}
	switch {
	case cause.Stream == rec.Stream:
		if cause.ID != last.ID {
			return fmt.Errorf("its cause is %s at %d, want its last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
		}
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s %s at %d is older than its last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s %s at %d is a ReplicaSet change of its own, which follows its spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case !slices.Contains(rsChanges, cause.Type) || !slices.Contains(ix.rsOwners[cause.Stream], rec.Stream):
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its spec nor of a ReplicaSet it owns", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// jobCounted holds a Job's count of finished pods to the change that
// finished one of the pods it counts: a pod it owns, one of those
// counted, and a change of its count.
func (ix causeIndex) jobCounted(rec, cause events.Record, ev domain.JobPodsCounted) error {
	uid := ix.podUID[cause.Stream]
	if !slices.Contains(podCounts, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], rec.Stream) ||
		!slices.Contains(ev.Succeeded, uid) && !slices.Contains(ev.Failed, uid) {
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of a pod it counts", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// startGate is the cause of a pod's start on its runtime: the last of
// its binding, its address and its node's turning Ready to open.
func (ix causeIndex) startGate(before []events.Record, pod string) events.Record {
	bound, _ := newest(before, pod, func(e domain.Event) bool { _, ok := e.(domain.PodScheduled); return ok })
	addressed, _ := newest(before, pod, func(e domain.Event) bool { _, ok := e.(domain.PodIPAssigned); return ok })
	ready, _ := newest(before, ix.podNode[pod], func(e domain.Event) bool {
		ch, ok := e.(domain.NodeConditionChanged)
		return ok && ch.Type == domain.ConditionReady && ch.Status == domain.ConditionTrue
	})
	out := bound
	for _, r := range []events.Record{addressed, ready} {
		if r.Position > out.Position {
			out = r
		}
	}
	return out
}

// newestOf is the newest record of stream among recs of one of types;
// the zero Record and false when there is none.
func newestOf(recs []events.Record, stream string, types []string) (events.Record, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Stream == stream && slices.Contains(types, recs[i].Type) {
			return recs[i], true
		}
	}
	return events.Record{}, false
}

// conditionTurn is the cause of a condition taint of node going on or
// off: the last turn of its condition before it and, for NoExecute, the
// fleet's disruption starting or ending when that came later.
func (ix causeIndex) conditionTurn(before []events.Record, node, key string, effect domain.TaintEffect) (events.Record, bool) {
	cond, ok := domain.ConditionOfTaint(key)
	if !ok {
		return events.Record{}, false
	}
	turn, _ := newest(before, node, func(e domain.Event) bool {
		ch, ok := e.(domain.NodeConditionChanged)
		return ok && ch.Type == cond
	})
	if effect != domain.EffectNoExecute {
		return turn, true
	}
	fleet, _ := newest(before, domain.FleetHealthStream, func(e domain.Event) bool {
		switch e.(type) {
		case domain.FleetDisruptionStarted, domain.FleetDisruptionEnded:
			return true
		}
		return false
	})
	if fleet.Position > turn.Position {
		return fleet, true
	}
	return turn, true
}

// markedTogether reports whether rec was appended in the same commit as
// the health monitor's marking of its node (a HeartbeatMissed with the
// same metadata and time, just before it in the stream).
func (ix causeIndex) markedTogether(before []events.Record, rec events.Record) bool {
	switch rec.Type {
	case domain.HeartbeatMissed{}.EventType(), domain.FleetDisruptionStarted{}.EventType():
		// The clock's doing: a silence, and the fleet judged from it.
		return true
	}
	for i := len(before) - 1; i >= 0; i-- {
		b := before[i]
		if b.Stream != rec.Stream {
			continue
		}
		if b.Metadata != rec.Metadata || !b.RecordedAt.Equal(rec.RecordedAt) {
			return false
		}
		if b.Type == (domain.HeartbeatMissed{}).EventType() {
			return true
		}
	}
	return false
}

// related reports whether cause is of rec's own object, its node, its
// pods, or its owners; for the fleet's own events, a node's; for an
// address pool's, a pod's.
func (ix causeIndex) related(rec, cause events.Record) bool {
	if cause.Stream == rec.Stream {
		return true
	}
	switch {
	case strings.HasPrefix(rec.Stream, "ipam/"):
		// An address goes to a pod bound, and back from one gone.
		return strings.HasPrefix(cause.Stream, "pod/")
	case rec.Stream == domain.FleetHealthStream:
		return strings.HasPrefix(cause.Stream, "node/")
	case strings.HasPrefix(rec.Stream, "pod/"):
		if ix.podNode[rec.Stream] == cause.Stream || ix.podNode[cause.Stream] == ix.podNode[rec.Stream] && ix.podNode[cause.Stream] != "" {
			return true
		}
		for _, o := range ix.podOwners[rec.Stream] {
			if o == cause.Stream {
				return true
			}
		}
	case strings.HasPrefix(rec.Stream, "node/"):
		return ix.podNode[cause.Stream] == rec.Stream
	case strings.HasPrefix(rec.Stream, "replicaset/"), strings.HasPrefix(rec.Stream, "job/"), strings.HasPrefix(rec.Stream, "daemonset/"):
		return slices.Contains(ix.podOwners[cause.Stream], rec.Stream)
	case strings.HasPrefix(rec.Stream, "deployment/"):
		return slices.Contains(ix.rsOwners[cause.Stream], rec.Stream)
	case strings.HasPrefix(rec.Stream, "controllerrevision/"):
		// A revision is made, renumbered or trimmed for its owner's
		// template.
		return slices.Contains(ix.revOwners[rec.Stream], cause.Stream)
	}
	return false
}

// namespaceOf is the namespace of a namespaced object's stream
// ("pod/ns/name"), or the namespace a namespace's stream names.
func namespaceOf(stream string) string {
	_, key, _ := strings.Cut(stream, "/")
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

// newest is the newest record of stream among recs whose event is accepts.
func newest(recs []events.Record, stream string, is func(domain.Event) bool) (events.Record, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Stream == stream && is(decoded(recs[i])) {
			return recs[i], true
		}
	}
	return events.Record{ID: "none in " + stream}, true
}

func decoded(rec events.Record) domain.Event {
	ev, _ := domain.UnmarshalEvent(rec.Type, rec.Payload)
	return ev
}

// says is what rec says, for a message.
func says(rec events.Record) string {
	switch ev := decoded(rec).(type) {
	case domain.NodeConditionChanged:
		return fmt.Sprintf("%s %s → %s", ev.Type, ev.From, ev.Status)
	case domain.NodeTainted:
		return ev.Taint.Key + ":" + string(ev.Taint.Effect)
	}
	return rec.Metadata.Actor
}

package features

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"
	batchv1 "k8s.io/api/batch/v1"

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
// ReplicaSets scaling, StatefulSets made, scaled, rolled out, held at a
// partition and deleted, their pods and revisions deleted by hand,
// CronJobs made, suspended and deleted while the clock passes their
// schedules) and holds every event a reconciler wrote to its
// cause: the record whose change the decision read. HERD_CAUSE_SEED
// replays one history.
func TestCausesOverRandomHistories(t *testing.T) {
	runCauseHistory(t, nil)
}

// TestCausesOverRandomHistoriesOnPostgres is the same on PostgreSQL.
func TestCausesOverRandomHistoriesOnPostgres(t *testing.T) {
	pgtest.Server(t)
	runCauseHistory(t, func() (*pgtest.Database, error) { return pgtest.NewDatabase(t) })
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

func runCauseHistory(t *testing.T, database func() (*pgtest.Database, error)) {
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
		"JobStatusRecorded", "JobPodsCounted", "DaemonSetStatusRecorded", "PodStatusUpdated",
		"StatefulSetStatusRecorded", "ControllerRevisionCreated", "CronJobStatusRecorded", "JobCreated", "PodMarkedNotReady", "PodMetadataChanged"} {
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
	// statefulSets and cronJobs count those it made; liveSets and
	// liveCrons are those not deleted yet, suspended the CronJobs it
	// suspended.
	statefulSets, cronJobs int
	liveSets, liveCrons    []string
	suspended              map[string]bool
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
	switch k := r.IntN(32); {
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

// workloadStep makes or changes a Deployment (which of kind), a Job, a
// DaemonSet, a StatefulSet or a CronJob, whose statuses then follow
// their pods, Jobs and nodes.
func (h *history) workloadStep(kind int) error {
	w, r := h.w, h.rng
	switch kind {
	case 4, 5:
		return h.statefulSetStep()
	case 6, 7:
		return h.cronJobStep()
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
	case 3:
		if len(h.daemonSets) == 0 || len(h.daemonSets) < 2 && r.IntN(2) == 0 {
			name := fmt.Sprintf("agent%d", len(h.daemonSets))
			h.daemonSets = append(h.daemonSets, name)
			return w.daemonSetRunsEverywhere(name, name)
		}
		return w.daemonSetGivenImage(h.daemonSets[r.IntN(len(h.daemonSets))], fmt.Sprintf("fluent-bit:%d", 4+r.IntN(50)))
	}
	return fmt.Errorf("no workload step %d", kind)
}

// statefulSetStep makes a StatefulSet, or scales one, gives it a new
// template (a rollout, held at a partition or not), moves its partition,
// loses one of its pods or revisions by hand, or deletes it.
func (h *history) statefulSetStep() error {
	w, r := h.w, h.rng
	if len(h.liveSets) == 0 || len(h.liveSets) < 3 && r.IntN(4) == 0 {
		h.statefulSets++
		name := fmt.Sprintf("db%d", h.statefulSets)
		h.liveSets = append(h.liveSets, name)
		return w.statefulSetKeeps(name, 1+r.IntN(3), "redis:1")
	}
	i := r.IntN(len(h.liveSets))
	name := h.liveSets[i]
	switch r.IntN(7) {
	case 0:
		return w.statefulSetScaled(name, r.IntN(4))
	case 1, 2:
		return w.statefulSetGivenImage(name, fmt.Sprintf("redis:%d", 2+r.IntN(4)), 0)
	case 3:
		// A rollout held above an ordinal, or a partition moved on the
		// template it has (the image of one of a few).
		return w.statefulSetGivenImage(name, fmt.Sprintf("redis:%d", 2+r.IntN(4)), r.IntN(3))
	case 4:
		return w.statefulSetRevisionDeleted(name)
	case 5:
		pods, err := w.statefulSetPods(name)
		if err != nil || len(pods) == 0 {
			return err
		}
		return w.statefulSetPodLost(pods[r.IntN(len(pods))].Name, name)
	default:
		h.liveSets = slices.Delete(h.liveSets, i, i+1)
		return w.mustWrite(http.MethodDelete, statefulSetsPath+"/"+url.PathEscape(name), "", nil)
	}
}

// cronJobStep makes a CronJob, suspends or resumes one, deletes one, or
// moves herd's clock past the next minute, when every CronJob's
// schedule comes round; the nodes report at the end of the wait.
func (h *history) cronJobStep() error {
	w, r := h.w, h.rng
	if h.suspended == nil {
		h.suspended = map[string]bool{}
	}
	if len(h.liveCrons) == 0 || len(h.liveCrons) < 3 && r.IntN(4) == 0 {
		h.cronJobs++
		name := fmt.Sprintf("cron%d", h.cronJobs)
		h.liveCrons = append(h.liveCrons, name)
		scripts := []string{"true", "sleep 70", "exit 1"}
		policies := []batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}
		return w.createCronJob(name, scripts[r.IntN(len(scripts))], 1+r.IntN(2), policies[r.IntN(len(policies))])
	}
	i := r.IntN(len(h.liveCrons))
	name := h.liveCrons[i]
	switch r.IntN(6) {
	case 0:
		h.suspended[name] = !h.suspended[name]
		return w.writeJSON(http.MethodPatch, cronJobsPath+"/"+url.PathEscape(name), "application/merge-patch+json",
			map[string]any{"spec": map[string]any{"suspend": h.suspended[name]}})
	case 1:
		h.liveCrons = slices.Delete(h.liveCrons, i, i+1)
		return w.mustWrite(http.MethodDelete, cronJobsPath+"/"+url.PathEscape(name), "", nil)
	default:
		next := w.clock.Now().Truncate(time.Minute).Add(time.Minute + time.Duration(r.IntN(20))*time.Second)
		if err := w.setClock(next); err != nil {
			return err
		}
		for _, n := range h.nodes {
			if err := h.heartbeat(n); err != nil {
				return err
			}
		}
		return nil
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
	// jobOwners are the streams of each Job stream's owners (its
	// CronJob).
	jobOwners map[string][]string
	// podLabels are each pod stream's labels at its creation; selectors
	// each budget stream's.
	podLabels map[string]map[string]string
	selectors map[string]*domain.LabelSelector
}

// checkCauses holds every event a reconciler wrote (actor system:herd:…)
// to its cause, and returns what is wrong and how many it checked.
//
// The index follows the log as it is checked: each record is held to
// what the log said up to it and with it (a StatefulSet's pod made again
// under its name is bound to another node, has another UID, than the
// pod before).
func checkCauses(recs []events.Record) (problems []string, checked int, exact map[string]int) {
	ix := newCauseIndex()
	for _, rec := range recs {
		ix.byID[rec.ID] = rec
	}
	exact = map[string]int{}
	for i, rec := range recs {
		ix.add(rec)
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
	ix := newCauseIndex()
	for _, rec := range recs {
		ix.add(rec)
	}
	return ix
}

func newCauseIndex() causeIndex {
	return causeIndex{byID: map[string]events.Record{}, podNode: map[string]string{}, podOwners: map[string][]string{},
		podUID: map[string]string{}, rsOwners: map[string][]string{}, revOwners: map[string][]string{}, jobOwners: map[string][]string{},
		podLabels: map[string]map[string]string{}, selectors: map[string]*domain.LabelSelector{}}
}

// add is what rec tells the index; a pod's creation starts its stream's
// facts anew (a pod made again under the name of one gone).
func (ix causeIndex) add(rec events.Record) {
	ix.byID[rec.ID] = rec
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return
	}
	{
		switch ev := ev.(type) {
		case domain.PodScheduled:
			ix.podNode[rec.Stream] = domain.NodeStream(ev.NodeName)
		case domain.PodDisruptionBudgetCreated:
			ix.selectors[rec.Stream] = ev.Spec.Selector
		case domain.PodCreated:
			ix.podLabels[rec.Stream] = ev.Labels
			ix.podUID[rec.Stream] = ev.UID
			delete(ix.podNode, rec.Stream)
			if ev.Spec.NodeName != "" {
				// A DaemonSet's pod comes bound to its node.
				ix.podNode[rec.Stream] = domain.NodeStream(ev.Spec.NodeName)
			}
			var owners []string
			for _, o := range ev.Owners {
				if stream, ok := ownerStream(ev.Namespace, o); ok {
					owners = append(owners, stream)
				}
			}
			ix.podOwners[rec.Stream] = owners
		case domain.ReplicaSetCreated:
			for _, o := range ev.Owners {
				if stream, ok := ownerStream(ev.Namespace, o); ok {
					ix.rsOwners[rec.Stream] = append(ix.rsOwners[rec.Stream], stream)
				}
			}
		case domain.ControllerRevisionCreated:
			for _, o := range ev.Owners {
				if stream, ok := ownerStream(ev.Namespace, o); ok && !slices.Contains(ix.revOwners[rec.Stream], stream) {
					ix.revOwners[rec.Stream] = append(ix.revOwners[rec.Stream], stream)
				}
			}
		case domain.JobCreated:
			for _, o := range ev.Owners {
				if stream, ok := ownerStream(ev.Namespace, o); ok {
					ix.jobOwners[rec.Stream] = append(ix.jobOwners[rec.Stream], stream)
				}
			}
		}
	}
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
			return true, ix.jobCounted(before, rec, cause, ev)
		}
	case domain.PodMetadataChanged:
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:job" {
			return true, ix.jobRelease(rec, cause, owners[0])
		}
	case domain.DaemonSetStatusRecorded:
		if rec.Metadata.Actor == "system:herd:daemonset" {
			return true, ix.daemonSetCount(before, rec, cause)
		}
	case domain.PodStatusUpdated:
		if rec.Metadata.Actor == "system:herd:zones" && ev.Status.Phase == domain.PodRunning && backingOff(ev.Status) {
			return true, ix.backoffCause(before, rec, cause)
		}
	case domain.StatefulSetStatusRecorded:
		if rec.Metadata.Actor == "system:herd:statefulset" {
			return true, ix.ownedCountOf(before, rec, cause, rec.Stream, statefulSetSpecs)
		}
	case domain.CronJobStatusRecorded:
		if rec.Metadata.Actor == "system:herd:cronjob" {
			return true, ix.runsCount(before, rec, cause, rec.Stream)
		}
	case domain.JobDeleted, domain.JobDeletionRequested:
		if owners := ix.jobOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:cronjob" {
			return true, ix.runsCount(before, rec, cause, owners[0])
		}
	case domain.ControllerRevisionCreated, domain.ControllerRevisionUpdated:
		if owners := ix.revOwners[rec.Stream]; len(owners) == 1 && ownerActor(owners[0]) == rec.Metadata.Actor {
			return true, ix.revisionMade(before, rec, cause, owners[0])
		}
	case domain.ControllerRevisionDeleted:
		if owners := ix.revOwners[rec.Stream]; len(owners) == 1 && ownerActor(owners[0]) == rec.Metadata.Actor {
			return true, ix.ownedCountOf(before, rec, cause, owners[0], specsOf(owners[0]))
		}
	case domain.PodCreated:
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:statefulset" {
			return true, ix.statefulSetPod(before, rec, cause, owners[0])
		}
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:job" {
			return true, ix.jobPod(before, rec, cause, owners[0])
		}
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:daemonset" {
			// Its node is known from its binding, which follows in
			// the same commit and is held to the same cause.
			return true, ix.daemonSetPod(before, rec, cause, owners[0], "")
		}
	case domain.PodScheduled:
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:daemonset" {
			if created, _ := newest(before, rec.Stream, func(e domain.Event) bool { _, ok := e.(domain.PodCreated); return ok }); created.Metadata.CausationID != rec.Metadata.CausationID {
				return true, fmt.Errorf("its cause %s at %d (%s) is not its creation's", cause.Type, cause.Position, says(cause))
			}
			return true, ix.daemonSetPod(before, rec, cause, owners[0], domain.NodeStream(ev.NodeName))
		}
	case domain.PodDeletionRequested:
		if owners := ix.podOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:statefulset" {
			return true, ix.ownedCountOf(before, rec, cause, owners[0], statefulSetSpecs)
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
			slices.Contains(ix.revOwners[r.Stream], rec.Stream) || slices.Contains(ix.jobOwners[r.Stream], rec.Stream) ||
			slices.Contains(ix.revOwners[rec.Stream], r.Stream) || slices.Contains(ix.jobOwners[rec.Stream], r.Stream) ||
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
		return newest(before, rec.Stream, func(e domain.Event) bool { _, ok := e.(domain.PodCreated); return ok })
	case domain.JobCreated:
		if owners := ix.jobOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:cronjob" {
			// A run is made for what the CronJob asks, when the clock
			// says.
			return newestOf(before, owners[0], cronJobSpecs)
		}
	case domain.CronJobWarned:
		if rec.Metadata.Actor == "system:herd:cronjob" {
			return newestOf(before, rec.Stream, cronJobSpecs)
		}
	case domain.ReplicaSetCreated, domain.ReplicaSetChanged:
		if owners := ix.rsOwners[rec.Stream]; len(owners) == 1 && rec.Metadata.Actor == "system:herd:deployment" {
			// A Deployment's rollout follows what it asks for.
			return newestOf(before, owners[0], []string{domain.DeploymentCreated{}.EventType(), domain.DeploymentChanged{}.EventType()})
		}
	case domain.PodStatusUpdated:
		if rec.Metadata.Actor == "system:herd:zones" && ev.Status.Phase == domain.PodRunning {
			return ix.startGate(before, rec.Stream), true
		}
	case domain.PodMarkedNotReady:
		// Its node's Ready turning other than True, last before it:
		// the node reporting it, herd marking the node silent, its
		// agent's clean stop.
		return newest(before, ix.podNode[rec.Stream], func(e domain.Event) bool {
			return domain.Holds(e, func(c domain.NodeConditionChanged) bool {
				return c.Type == domain.ConditionReady && c.Status != domain.ConditionTrue
			})
		})
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
		domain.PodStatusUpdated{}.EventType(), domain.PodMarkedNotReady{}.EventType(), domain.PodStopped{}.EventType(),
		domain.PodDeletionRequested{}.EventType()}
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
		return domain.DeploymentAggregate.Stream(ns + "/" + o.Name), true
	case "Job":
		return domain.JobStream(ns, o.Name), true
	case "DaemonSet":
		return domain.DaemonSetStream(ns, o.Name), true
	case "StatefulSet":
		return domain.StatefulSetAggregate.Stream(ns + "/" + o.Name), true
	case "CronJob":
		return domain.CronJobAggregate.Stream(ns + "/" + o.Name), true
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
	return ix.ownedCountOf(before, rec, cause, rec.Stream, specs)
}

// ownedCountOf is ownedCount for a write of owner's reconciler that
// follows what it counts of owner's pods, on owner's stream or another
// (a StatefulSet's pod deleted, its revision trimmed).
func (ix causeIndex) ownedCountOf(before []events.Record, rec, cause events.Record, owner string, specs []string) error {
	last, _ := newestOf(before, owner, specs)
	switch {
	case cause.Stream == owner:
		if cause.ID != last.ID {
			return fmt.Errorf("its cause is %s at %d, want its last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
		}
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s %s at %d is older than its last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s %s at %d is a pod change of its own, which follows its spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case !slices.Contains(podCounts, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], owner):
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its spec nor of the count of a pod it owns", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// The changes of what a StatefulSet, a DaemonSet and a CronJob ask
// for.
var (
	statefulSetSpecs = []string{domain.StatefulSetCreated{}.EventType(), domain.StatefulSetChanged{}.EventType()}
	daemonSetSpecs   = []string{domain.DaemonSetCreated{}.EventType(), domain.DaemonSetChanged{}.EventType()}
	cronJobSpecs     = []string{domain.CronJobCreated{}.EventType(), domain.CronJobChanged{}.EventType()}
	// jobChanges are a Job's changes that its CronJob follows: all but
	// its pods' counts.
	jobChanges = []string{domain.JobCreated{}.EventType(), domain.JobChanged{}.EventType(), domain.JobStatusRecorded{}.EventType(),
		domain.JobOwnersChanged{}.EventType(), domain.JobDeletionRequested{}.EventType()}
	// podEnds are a pod's changes that end it, which a StatefulSet's
	// pod made again under its name answers.
	podEnds = append(slices.Clone(reconcilers.PodLossChanges), domain.PodFinalized{}.EventType())
)

// ownerActor is the actor of the reconciler of the owner's stream
// ("statefulset/ns/name": system:herd:statefulset).
func ownerActor(owner string) string {
	kind, _, _ := strings.Cut(owner, "/")
	return "system:herd:" + kind
}

// specsOf are the changes of what the owner of a ControllerRevision
// asks for.
func specsOf(owner string) []string {
	if strings.HasPrefix(owner, "daemonset/") {
		return daemonSetSpecs
	}
	return statefulSetSpecs
}

// revisionMade holds a revision its owner's reconciler made or
// renumbered as the newest to what the owner asks for: its last change
// of spec (a new template, an old one come back), or a later deletion of
// the revision by another (kubectl delete controllerrevision), which
// making it again answers.
func (ix causeIndex) revisionMade(before []events.Record, rec, cause events.Record, owner string) error {
	last, _ := newestOf(before, owner, specsOf(owner))
	switch {
	case cause.Stream == owner:
		if cause.ID != last.ID {
			return fmt.Errorf("its cause is %s at %d, want its owner's last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
		}
	case cause.Stream != rec.Stream || cause.Type != (domain.ControllerRevisionDeleted{}).EventType():
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its owner's spec nor its own deletion", cause.Type, cause.Stream, cause.Position, says(cause))
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s at %d is a deletion of its owner's own, which follows a change of spec", cause.Type, cause.Position)
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s at %d is older than its owner's last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
	}
	return nil
}

// statefulSetPod holds a pod a StatefulSet made to what its reconcile
// read: what ownedCountOf accepts of the StatefulSet and its pods, or a
// later end of the pod's predecessor under its name by another (a
// deletion by hand, a stop, the finalization the StatefulSet waited for).
func (ix causeIndex) statefulSetPod(before []events.Record, rec, cause events.Record, owner string) error {
	if cause.Stream != rec.Stream {
		return ix.ownedCountOf(before, rec, cause, owner, statefulSetSpecs)
	}
	last, _ := newestOf(before, owner, statefulSetSpecs)
	switch {
	case !slices.Contains(podEnds, cause.Type):
		return fmt.Errorf("its cause %s at %d (%s) is no end of its predecessor", cause.Type, cause.Position, says(cause))
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s at %d is its StatefulSet's own deletion of its predecessor", cause.Type, cause.Position)
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s at %d is older than its StatefulSet's last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
	}
	return nil
}

// runsCount holds a CronJob's status, and the Jobs it deletes, to what
// moved them: its last change of spec (a run made on schedule follows
// it), or a later change of a Job it owns made by another (one
// finishing).
func (ix causeIndex) runsCount(before []events.Record, rec, cause events.Record, owner string) error {
	last, _ := newestOf(before, owner, cronJobSpecs)
	switch {
	case cause.Stream == owner:
		if cause.ID != last.ID {
			return fmt.Errorf("its cause is %s at %d, want its CronJob's last change of spec %s at %d", cause.Type, cause.Position, last.Type, last.Position)
		}
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s %s at %d is older than its CronJob's last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s %s at %d is a Job change of its CronJob's own, which follows its spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	case !slices.Contains(jobChanges, cause.Type) || !slices.Contains(ix.jobOwners[cause.Stream], owner):
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of its CronJob's spec nor of a Job it owns", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// daemonSetPod holds a pod a DaemonSet made bound to node (its stream;
// "" at the pod's creation, before the binding that says it) to why it
// was made there: the DaemonSet's last change of spec; a later change of
// the node's fit or readiness; or the loss, by another than the
// DaemonSet, of a pod of it bound to the node (traced back to its
// origin, which may be older).
func (ix causeIndex) daemonSetPod(before []events.Record, rec, cause events.Record, owner, node string) error {
	last, _ := newestOf(before, owner, daemonSetSpecs)
	switch {
	case cause.ID == last.ID:
	case strings.HasPrefix(cause.Stream, "node/"):
		switch {
		case !slices.Contains(arrivalChanges, cause.Type) && !domain.Holds[domain.NodeBecameReady](decoded(cause), nil):
			return fmt.Errorf("its cause %s %s at %d is no change of a node's fit or readiness", cause.Type, cause.Stream, cause.Position)
		case node != "" && cause.Stream != node:
			return fmt.Errorf("its cause %s %s at %d is not of its node, %s", cause.Type, cause.Stream, cause.Position, node)
		case cause.Position < last.Position:
			return fmt.Errorf("its cause %s %s at %d is older than its DaemonSet's last change of spec %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
		}
	case strings.HasPrefix(cause.Stream, "pod/"):
		switch {
		case !slices.Contains(reconcilers.PodLossChanges, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], owner):
			return fmt.Errorf("its cause %s %s at %d (%s) is no loss of a pod of its DaemonSet", cause.Type, cause.Stream, cause.Position, says(cause))
		case cause.Metadata.Actor == rec.Metadata.Actor:
			return fmt.Errorf("its cause %s %s at %d is its DaemonSet's own deletion", cause.Type, cause.Stream, cause.Position)
		case node != "" && ix.podNode[cause.Stream] != node:
			return fmt.Errorf("its cause %s %s at %d is the loss of a pod on %s, not on its node %s", cause.Type, cause.Stream, cause.Position, ix.podNode[cause.Stream], node)
		}
	default:
		return fmt.Errorf("its cause %s %s at %d (%s) is none of its DaemonSet's changes, its node's nor a lost pod's", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// jobPod holds a pod a Job made to why the Job wanted one more: the
// newest of the Job's changes of spec and its counts of pods that
// finished (a retry, the next completion), or a later loss, by another
// than the Job, of a pod of it (taken from it, or gone before it was
// counted), traced back to its origin.
func (ix causeIndex) jobPod(before []events.Record, rec, cause events.Record, owner string) error {
	last, _ := newest(before, owner, func(e domain.Event) bool {
		switch e := e.(type) {
		case domain.JobCreated, domain.JobChanged:
			return true
		case domain.JobPodsCounted:
			return len(e.Succeeded)+len(e.Failed) > 0
		}
		return false
	})
	switch {
	case cause.ID == last.ID:
	case cause.Stream == owner:
		return fmt.Errorf("its cause is %s at %d (%s), want its Job's last change of spec or count of finished pods %s at %d (%s)",
			cause.Type, cause.Position, says(cause), last.Type, last.Position, says(last))
	case !slices.Contains(reconcilers.PodLossChanges, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], owner):
		return fmt.Errorf("its cause %s %s at %d (%s) is none of its Job's changes nor the loss of a pod of it", cause.Type, cause.Stream, cause.Position, says(cause))
	case cause.Metadata.Actor == rec.Metadata.Actor:
		return fmt.Errorf("its cause %s %s at %d is its Job's own deletion", cause.Type, cause.Stream, cause.Position)
	case cause.Position < last.Position:
		return fmt.Errorf("its cause %s %s at %d is older than its Job's last change or count %s at %d", cause.Type, cause.Stream, cause.Position, last.Type, last.Position)
	}
	return nil
}

// arrivalChanges are a node's changes after which a DaemonSet's pod may
// be made on it: its fit, and its turning Ready (alone; within a report's
// other changes, a NodeStatusChanged that holds it).
var arrivalChanges = append(slices.Clone(fitChanges), domain.NodeBecameReady{}.EventType())

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
//
// A failing Job's count of the pods it stops as failures names what
// their stop named (what decided the failure): the cause of its own
// deletion of one of them just before.
func (ix causeIndex) jobCounted(before []events.Record, rec, cause events.Record, ev domain.JobPodsCounted) error {
	for i := len(before) - 1; i >= 0 && i >= len(before)-64; i-- {
		b := before[i]
		if b.Type == (domain.PodDeletionRequested{}).EventType() && b.Metadata.Actor == rec.Metadata.Actor &&
			b.Metadata.CausationID == rec.Metadata.CausationID && slices.Contains(ev.Failed, ix.podUID[b.Stream]) {
			return nil
		}
	}
	uid := ix.podUID[cause.Stream]
	if !slices.Contains(podCounts, cause.Type) || !slices.Contains(ix.podOwners[cause.Stream], rec.Stream) ||
		!slices.Contains(ev.Succeeded, uid) && !slices.Contains(ev.Failed, uid) {
		return fmt.Errorf("its cause %s %s at %d (%s) is no change of a pod it counts", cause.Type, cause.Stream, cause.Position, says(cause))
	}
	return nil
}

// jobRelease holds the Job's release of its pod (its tracking finalizer
// taken off) to what ended the Job's interest in it: the Job's count
// that counted it, the pod's own end when the Job does not count it (a
// deletion while it was suspended or had succeeded), the Job's deletion,
// or the change that took the pod from its Job.
func (ix causeIndex) jobRelease(rec, cause events.Record, owner string) error {
	uid := ix.podUID[rec.Stream]
	switch c := decoded(cause).(type) {
	case domain.JobPodsCounted:
		if cause.Stream == owner && (slices.Contains(c.Succeeded, uid) || slices.Contains(c.Failed, uid)) {
			return nil
		}
	case domain.JobDeleted, domain.JobDeletionRequested:
		if cause.Stream == owner {
			return nil
		}
	case domain.PodOwnersChanged:
		if cause.Stream == rec.Stream {
			return nil
		}
	default:
		if cause.Stream == rec.Stream && slices.Contains(reconcilers.PodEndChanges, cause.Type) {
			return nil
		}
	}
	return fmt.Errorf("its cause %s %s at %d (%s) is neither its Job's count of it, its own end, its Job's deletion, nor its taking from the Job", cause.Type, cause.Stream, cause.Position, says(cause))
}

// startGate is the cause of a pod's start on its runtime: the last of
// its binding, its address and its node's turning Ready to open.
func (ix causeIndex) startGate(before []events.Record, pod string) events.Record {
	bound, _ := newest(before, pod, func(e domain.Event) bool { _, ok := e.(domain.PodScheduled); return ok })
	addressed, _ := newest(before, pod, func(e domain.Event) bool { _, ok := e.(domain.PodIPAssigned); return ok })
	ready, _ := newest(before, ix.podNode[pod], func(e domain.Event) bool {
		return domain.Holds(e, func(ch domain.NodeConditionChanged) bool {
			return ch.Type == domain.ConditionReady && ch.Status == domain.ConditionTrue
		})
	})
	out := bound
	for _, r := range []events.Record{addressed, ready} {
		if r.Position > out.Position {
			out = r
		}
	}
	return out
}

// backoffCause holds the report of a pod whose containers ended and
// wait to restart to what it follows: the report of it running, since
// which they ran to that end, or, when they ended as they started, the
// last of its start's gates to open.
func (ix causeIndex) backoffCause(before []events.Record, rec, cause events.Record) error {
	if gate := ix.startGate(before, rec.Stream); cause.ID == gate.ID {
		return nil
	}
	if u, ok := decoded(cause).(domain.PodStatusUpdated); ok && cause.Stream == rec.Stream && u.Status.Phase == domain.PodRunning && cause.Metadata.Actor == rec.Metadata.Actor {
		return nil
	}
	return fmt.Errorf("its cause %s %s at %d (%s) is neither the report of it running nor the last gate of its start", cause.Type, cause.Stream, cause.Position, says(cause))
}

// backingOff reports whether a Running pod's containers ended and wait
// to restart (CrashLoopBackOff), as a restart policy of OnFailure or
// Always has them.
func backingOff(st domain.PodStatus) bool {
	return slices.ContainsFunc(st.ContainerStatuses, func(c domain.ContainerStatus) bool {
		return c.State.Waiting != nil && c.State.Waiting.Reason == "CrashLoopBackOff"
	})
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
		if _, missed := e.(domain.HeartbeatMissed); missed {
			return false // a mark's turns are the clock's (markedTogether)
		}
		return domain.Holds(e, func(ch domain.NodeConditionChanged) bool { return ch.Type == cond })
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

// markedTogether reports whether rec was appended by the same write as
// the health monitor's marking of its node (a HeartbeatMissed before it
// in the stream, in the write the log marks rec as continuing).
func (ix causeIndex) markedTogether(before []events.Record, rec events.Record) bool {
	switch rec.Type {
	case domain.HeartbeatMissed{}.EventType(), domain.FleetDisruptionStarted{}.EventType():
		// The clock's doing: a silence, and the fleet judged from it.
		return true
	}
	cur := rec
	for i := len(before) - 1; i >= 0 && cur.Continues; i-- {
		b := before[i]
		if b.Stream != rec.Stream {
			continue
		}
		if b.Type == (domain.HeartbeatMissed{}).EventType() {
			return true
		}
		cur = b
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
			// Its owner, or a pod of its owner's (a rollout that goes on
			// once the pod before is gone or ready).
			if o == cause.Stream || slices.Contains(ix.podOwners[cause.Stream], o) {
				return true
			}
		}
	case strings.HasPrefix(rec.Stream, "node/"):
		return ix.podNode[cause.Stream] == rec.Stream
	case strings.HasPrefix(rec.Stream, "job/"):
		// A Job's pods, or its CronJob (the garbage collector deleting
		// the Jobs of a CronJob deleted).
		return slices.Contains(ix.podOwners[cause.Stream], rec.Stream) || slices.Contains(ix.jobOwners[rec.Stream], cause.Stream)
	case strings.HasPrefix(rec.Stream, "replicaset/"), strings.HasPrefix(rec.Stream, "daemonset/"), strings.HasPrefix(rec.Stream, "statefulset/"):
		return slices.Contains(ix.podOwners[cause.Stream], rec.Stream) || slices.Contains(ix.revOwners[cause.Stream], rec.Stream)
	case strings.HasPrefix(rec.Stream, "cronjob/"):
		return slices.Contains(ix.jobOwners[cause.Stream], rec.Stream)
	case strings.HasPrefix(rec.Stream, "deployment/"):
		return slices.Contains(ix.rsOwners[cause.Stream], rec.Stream)
	case strings.HasPrefix(rec.Stream, "poddisruptionbudget/"):
		// A disruption granted to a drain or an eviction of a pod it
		// selects.
		sel := ix.selectors[rec.Stream]
		if sel == nil {
			return false
		}
		if strings.HasPrefix(cause.Stream, "pod/") {
			return sel.Matches(ix.podLabels[cause.Stream])
		}
		for pod, node := range ix.podNode {
			if node == cause.Stream && namespaceOf(pod) == namespaceOf(rec.Stream) && sel.Matches(ix.podLabels[pod]) {
				return true
			}
		}
		return false
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

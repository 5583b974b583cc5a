package job

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// causeHarness is the Job reconciler on herd's own log, views and unit
// of work, a fake clock, and pods named pi-1, pi-2, … in the order it
// creates them.
type causeHarness struct {
	t   *testing.T
	env *reconcilerstest.Env
	r   *Reconciler
}

func newCauseHarness(t *testing.T, spec domain.JobSpec) *causeHarness {
	env := reconcilerstest.New(t)
	r, err := New(DefaultConfig(), projections.NewJobView(env.Log), env.Pods.Remembering(env.Writer), env.Writer.PodBatch(),
		env.Writer.JobCommands(), env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	// Two workers may name pods at once: the count is theirs together.
	var mu sync.Mutex
	n := 0
	r.IDs = Identities{
		Suffix: func() string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprint(n) },
		UID:    func() string { mu.Lock(); defer mu.Unlock(); return fmt.Sprintf("uid-pod-%d", n) },
	}
	if _, err := env.Writer.JobCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: "pi"},
		domain.CreateJob{Meta: domain.ObjectMeta{Namespace: "default", Name: "pi", UID: "uid-pi"}, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	return &causeHarness{t: t, env: env, r: r}
}

// reconcile reconciles the Job directly, as a test of its decisions
// does: no record queued it and no log is there to name causes from.
func (h *causeHarness) reconcile() {
	h.t.Helper()
	if _, err := h.r.Reconcile(h.t.Context(), reconcilers.Key{Aggregate: domain.JobAggregate, Namespace: "default", Name: "pi"}); err != nil {
		h.t.Fatal(err)
	}
}

// job applies cmd to default/pi as an operator would.
func (h *causeHarness) job(cmd domain.JobCommand) {
	h.t.Helper()
	ctx := events.WithMetadata(h.t.Context(), events.Metadata{Actor: "kubernetes-admin"})
	if _, err := h.env.Writer.JobCommands().Execute(ctx, domain.Key{Namespace: "default", Name: "pi"}, cmd); err != nil {
		h.t.Fatalf("%T on job pi: %v", cmd, err)
	}
}

// edit changes the Job's spec as it stands, as kubectl edit would.
func (h *causeHarness) edit(change func(*domain.JobSpec)) {
	h.t.Helper()
	j, err := h.r.jobs.Last(h.t.Context(), "default", "pi")
	if err != nil {
		h.t.Fatal(err)
	}
	spec := j.Spec
	change(&spec)
	h.job(domain.Precondition[domain.JobCommand]{ResourceVersion: j.ResourceVersion, Command: domain.UpdateJob{Meta: domain.ObjectMeta{Labels: j.Labels, Annotations: j.Annotations}, Spec: spec}})
}

// pod applies cmd to default/name as actor would.
func (h *causeHarness) pod(actor, name string, cmd domain.PodCommand) {
	h.t.Helper()
	ctx := events.WithMetadata(h.t.Context(), events.Metadata{Actor: actor})
	if _, err := h.env.Writer.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name}, cmd); err != nil {
		h.t.Fatalf("%T on pod %s: %v", cmd, name, err)
	}
}

// runs binds the named pods to n1 and reports them running, as the
// scheduler and their runtime would.
func (h *causeHarness) runs(names ...string) {
	h.t.Helper()
	for _, name := range names {
		h.pod("system:herd:scheduler", name, domain.BindPod{NodeName: "n1"})
		h.pod("system:node:n1", name, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning}})
	}
}

// startResync runs the reconciler in the framework over a log whose
// records are not handed over, so that only the first resync, at its
// start, reconciles the Job, until the test ends.
func (h *causeHarness) startResync() {
	h.t.Helper()
	reconcilerstest.StartResyncOnly(h.t, h.env, h.r)
}

// resync starts the resync (startResync) and returns the first count
// since that want accepts.
func (h *causeHarness) resync(want func(domain.JobPodsCounted) bool) (events.Record, domain.JobPodsCounted) {
	h.t.Helper()
	counted := domain.JobPodsCounted{}.EventType()
	before, _ := h.env.Newest(domain.JobStream("default", "pi"), counted)
	h.startResync()
	var rec events.Record
	var ev domain.JobPodsCounted
	eventstest.Eventually(h.t, eventstest.WaitFor, func() bool {
		recs, err := h.env.Log.Query(h.t.Context(), events.Filter{Stream: domain.JobStream("default", "pi"), Types: []string{counted}, After: before.Position})
		if err != nil {
			h.t.Fatal(err)
		}
		for _, r := range recs {
			e, err := domain.UnmarshalEvent(r.Type, r.Payload)
			if err != nil {
				h.t.Fatal(err)
			}
			if c, ok := e.(domain.JobPodsCounted); ok && want(c) {
				rec, ev = r, c
				return true
			}
		}
		return false
	}, "the resync's reconcile counts the Job's pods")
	return rec, ev
}

// wantCause fails the test unless rec names cause as its cause.
func wantCause(t *testing.T, rec, cause events.Record) {
	t.Helper()
	if rec.Metadata.CausationID != cause.ID {
		t.Errorf("%s at %d names cause %q, want %s %s at %d (%s)", rec.Type, rec.Position, rec.Metadata.CausationID,
			cause.Type, cause.Stream, cause.Position, cause.ID)
	}
}

var pod1, pod2 = domain.PodStream("default", "pi-1"), domain.PodStream("default", "pi-2")

// piSpec is a Job of parallelism pods at a time, completions in all,
// whose pods (one perl container) restart as restart says.
func piSpec(parallelism, completions, backoffLimit int32, restart domain.RestartPolicy) domain.JobSpec {
	return domain.JobSpec{Parallelism: parallelism, Completions: &completions, BackoffLimit: backoffLimit, CompletionMode: domain.JobNonIndexed,
		Template: domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: restart, Containers: []domain.Container{{Name: "pi", Image: "perl"}}}}}
}

// deletedByTheJob waits until the Job's reconciler has asked to delete
// the pods of each stream, and returns those requests.
func (h *causeHarness) deletedByTheJob(streams ...string) []events.Record {
	h.t.Helper()
	var deleted []events.Record
	eventstest.Eventually(h.t, eventstest.WaitFor, func() bool {
		deleted = nil
		for _, stream := range streams {
			if rec, ok := h.env.Newest(stream, domain.PodDeletionRequested{}.EventType()); ok && rec.Metadata.Actor == "system:herd:job" {
				deleted = append(deleted, rec)
			}
		}
		return len(deleted) == len(streams)
	}, "the Job's reconciler deletes %d pods", len(streams))
	return deleted
}

// TestAResyncsCountOfAPodGoneNamesItsFinalization: a finished pod the
// Job counted is deleted; a resync reads it gone before the record of
// its finalization reaches the reconciler, which has none to keep. The
// count that forgets it names that finalization, found in the log.
func TestAResyncsCountOfAPodGoneNamesItsFinalization(t *testing.T) {
	h := newCauseHarness(t, piSpec(1, 1, 6, domain.RestartNever))
	h.reconcile()
	h.runs("pi-1")
	h.pod("system:node:n1", "pi-1", domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodSucceeded}})
	h.reconcile() // counts pi-1's success; the Job is Complete
	h.env.Clock.Step(time.Minute)
	h.pod("kubernetes-admin", "pi-1", domain.DeletePod{}) // finished: it goes at once
	finalized, ok := h.env.Newest(pod1, domain.PodFinalized{}.EventType())
	if !ok {
		t.Fatal("pi-1 was not finalized")
	}

	rec, ev := h.resync(func(domain.JobPodsCounted) bool { return true })
	if len(ev.Succeeded)+len(ev.Failed) != 0 || len(ev.Forgotten) != 1 || ev.Forgotten[0] != "uid-pod-1" {
		t.Fatalf("the resync's count is %+v, want pi-1 forgotten alone", ev)
	}
	wantCause(t, rec, finalized)
}

// TestAResyncsCountOfAFailingJobsStoppedPodsNamesTheirDeletion: a Job
// whose backoff limit a failed pod exceeds stops its other pod and
// counts it failed at once. When a resync started that reconcile, no
// record queued it: the count names the stopped pod's deletion, which
// ended it, and the deletion the count of the failure that failed the
// Job.
func TestAResyncsCountOfAFailingJobsStoppedPodsNamesTheirDeletion(t *testing.T) {
	h := newCauseHarness(t, piSpec(2, 2, 0, domain.RestartNever))
	h.reconcile()
	h.runs("pi-1", "pi-2")
	h.pod("system:node:n1", "pi-1", domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodFailed}})
	failed, _ := h.env.Newest(pod1, domain.PodStatusUpdated{}.EventType())

	rec, _ := h.resync(func(c domain.JobPodsCounted) bool { return slices.Equal(c.Failed, []string{"uid-pod-2"}) })
	deleted, ok := h.env.Newest(pod2, domain.PodDeletionRequested{}.EventType())
	if !ok || deleted.Metadata.Actor != "system:herd:job" {
		t.Fatalf("pi-2 was not deleted by the Job's reconciler: %+v", deleted)
	}
	wantCause(t, rec, deleted)
	// The count of pi-1, in the same reconcile, names its failure, and
	// pi-2's deletion that count, which failed the Job.
	first, err := h.env.Log.Query(t.Context(), events.Filter{Stream: domain.JobStream("default", "pi"),
		Types: []string{domain.JobPodsCounted{}.EventType()}, Before: rec.Position, Newest: true, Limit: 1})
	if err != nil || len(first) != 1 {
		t.Fatalf("the count of pi-1: %v, %v", first, err)
	}
	wantCause(t, first[0], failed)
	wantCause(t, deleted, first[0])
}

// TestAResyncsDeletionOfAJobsPodsNamesWhatAskedForIt: the pods a Job's
// reconciler deletes in a reconcile a resync started, which no record
// queued, name what asked for their deletion as read: the Job's
// deletion, its deletion in the foreground, its suspension, a lower
// parallelism, and, past its deadline, the change its deadline counts
// from (here its creation, which asked for it).
func TestAResyncsDeletionOfAJobsPodsNamesWhatAskedForIt(t *testing.T) {
	hour := int64(3600)
	spec := piSpec(2, 4, 6, domain.RestartNever)
	spec.ActiveDeadlineSeconds = &hour
	for _, tc := range []struct {
		name  string
		act   func(*causeHarness)
		cause string // the type of the Job's record named
		pods  int    // how many of its two pods it deletes
	}{
		// A Job gone is no resync's; one of its name made again is.
		{"deleted, and another made of its name", func(h *causeHarness) {
			h.job(domain.DeleteJob{})
			h.job(domain.CreateJob{Meta: domain.ObjectMeta{Namespace: "default", Name: "pi", UID: "uid-pi-again"}, Spec: spec})
		}, domain.JobDeleted{}.EventType(), 2},
		{"deleted in the foreground", func(h *causeHarness) { h.job(domain.DeleteJob{Propagation: domain.PropagateForeground}) },
			domain.JobDeletionRequested{}.EventType(), 2},
		{"suspended", func(h *causeHarness) { h.edit(func(s *domain.JobSpec) { s.Suspend = true }) }, domain.JobChanged{}.EventType(), 2},
		{"fewer pods wanted", func(h *causeHarness) { h.edit(func(s *domain.JobSpec) { s.Parallelism = 1 }) }, domain.JobChanged{}.EventType(), 1},
		{"past its deadline", func(h *causeHarness) { h.env.Clock.Step(time.Duration(hour+1) * time.Second) }, domain.JobCreated{}.EventType(), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCauseHarness(t, spec)
			h.reconcile()
			h.runs("pi-1", "pi-2")
			tc.act(h)
			cause, ok := h.env.Newest(domain.JobStream("default", "pi"), tc.cause)
			if !ok {
				t.Fatalf("the Job has no %s", tc.cause)
			}
			h.startResync()
			var deleted []events.Record
			eventstest.Eventually(t, eventstest.WaitFor, func() bool {
				deleted = nil
				for _, stream := range []string{pod1, pod2} {
					if rec, ok := h.env.Newest(stream, domain.PodDeletionRequested{}.EventType()); ok && rec.Metadata.Actor == "system:herd:job" {
						deleted = append(deleted, rec)
					}
				}
				return len(deleted) == tc.pods
			}, "the resync's reconcile deletes %d of the Job's pods", tc.pods)
			for _, rec := range deleted {
				wantCause(t, rec, cause)
			}
		})
	}
}

// TestAResyncsDeletionOfAJobPastItsTTLNamesItsFinishing: a Job deleted
// when its ttlSecondsAfterFinished has passed, in a reconcile a resync
// started, names the record of its status that says it finished.
func TestAResyncsDeletionOfAJobPastItsTTLNamesItsFinishing(t *testing.T) {
	minute := int32(60)
	spec := piSpec(1, 1, 6, domain.RestartNever)
	spec.TTLSecondsAfterFinished = &minute
	h := newCauseHarness(t, spec)
	h.reconcile()
	h.runs("pi-1")
	h.pod("system:node:n1", "pi-1", domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodSucceeded}})
	for range 3 { // counts pi-1, finishes, and settles what it shows
		h.reconcile()
	}
	job := domain.JobStream("default", "pi")
	finished, ok := h.env.Newest(job, domain.JobStatusRecorded{}.EventType())
	if !ok {
		t.Fatal("the Job recorded no status")
	}
	e, err := domain.UnmarshalEvent(finished.Type, finished.Payload)
	if err != nil || !e.(domain.JobStatusRecorded).Status.Finished() {
		t.Fatalf("the Job's last status is not finished: %+v, %v", e, err)
	}
	h.env.Clock.Step(2 * time.Minute)
	h.startResync()
	var deleted events.Record
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		for _, typ := range []string{domain.JobDeletionRequested{}.EventType(), domain.JobDeleted{}.EventType()} {
			if rec, ok := h.env.Newest(job, typ); ok && rec.Metadata.Actor == "system:herd:job" && (deleted.ID == "" || rec.Position < deleted.Position) {
				deleted = rec
			}
		}
		return deleted.ID != ""
	}, "the resync's reconcile deletes the Job past its TTL")
	wantCause(t, deleted, finished)
}

// TestAResyncsStoppingOfAJobsRestartedPodsNamesTheRestartThatFailedIt: a
// Job whose pods restart on failure fails once they have restarted, all
// together, as often as its backoff limit allows. When a resync started
// that reconcile, the deletion of its pods names the report of the
// restart that reached the limit, not a later report that only repeated
// a count.
func TestAResyncsStoppingOfAJobsRestartedPodsNamesTheRestartThatFailedIt(t *testing.T) {
	h := newCauseHarness(t, piSpec(2, 2, 2, domain.RestartOnFailure))
	h.reconcile()
	h.runs("pi-1", "pi-2")
	restarted := func(name string, restarts int32, ready bool) events.Record {
		h.t.Helper()
		h.pod("system:node:n1", name, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning,
			ContainerStatuses: []domain.ContainerStatus{{Name: "pi", Image: "perl", Ready: ready, RestartCount: restarts}}}})
		rec, _ := h.env.Newest(domain.PodStream("default", name), domain.PodStatusUpdated{}.EventType())
		return rec
	}
	restarted("pi-1", 1, true)
	h.env.Clock.Step(time.Second)
	crossed := restarted("pi-2", 1, true) // two restarts: the limit
	h.env.Clock.Step(time.Second)
	restarted("pi-1", 1, false) // the same count, reported again

	h.startResync()
	for _, rec := range h.deletedByTheJob(pod1, pod2) {
		wantCause(t, rec, crossed)
	}
}

// TestAResyncsDeletionOfAPodMadeByHandForAJobNamesItsCreation: a pod an
// operator makes by hand with a Job as its controller gives the Job more
// pods than it wants; the Job deletes the surplus. When a resync started
// that reconcile, the deletion names the hand-made pod's creation, not
// the Job's spec, which asked for no more.
func TestAResyncsDeletionOfAPodMadeByHandForAJobNamesItsCreation(t *testing.T) {
	h := newCauseHarness(t, piSpec(1, 2, 6, domain.RestartNever))
	h.reconcile()
	h.runs("pi-1")
	h.env.Clock.Step(time.Second)
	h.pod("kubernetes-admin", "pi-extra", domain.CreatePod{Namespace: "default", Name: "pi-extra", UID: "uid-extra",
		Labels: map[string]string{domain.LabelJobControllerUID: "uid-pi"},
		Owners: []domain.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "uid-pi", Controller: true}},
		Spec:   domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "pi", Image: "perl"}}}})
	made, ok := h.env.Newest(domain.PodStream("default", "pi-extra"), domain.PodCreated{}.EventType())
	if !ok {
		t.Fatal("pi-extra was not created")
	}

	h.startResync()
	wantCause(t, h.deletedByTheJob(domain.PodStream("default", "pi-extra"))[0], made)
	if _, ok := h.env.Newest(pod1, domain.PodDeletionRequested{}.EventType()); ok {
		t.Error("the Job deleted its own running pod pi-1, not the unbound one made by hand")
	}
}

// lastCount is the Job's newest count of its pods.
func (h *causeHarness) lastCount() events.Record {
	h.t.Helper()
	counted, ok := h.env.Newest(domain.JobStream("default", "pi"), domain.JobPodsCounted{}.EventType())
	if !ok {
		h.t.Fatal("the Job counted none of its pods")
	}
	return counted
}

// createdPod waits until a resync's reconciles have made pod name,
// stepping herd's clock past the Job's backoff as they ask for it, and
// returns its creation.
func (h *causeHarness) createdPod(name string) events.Record {
	h.t.Helper()
	var made events.Record
	eventstest.Eventually(h.t, eventstest.WaitFor, func() bool {
		rec, ok := h.env.Newest(domain.PodStream("default", name), domain.PodCreated{}.EventType())
		if !ok {
			h.env.Clock.Step(11 * time.Second) // past a first failure's 10 s backoff
			return false
		}
		made = rec
		return true
	}, "the Job makes %s", name)
	return made
}

// TestAResyncsRetryOfAnEvictedPodNamesTheCountOfItsEviction: a drain
// evicts a Job's running pod; the Job counts it failed, waits out its
// backoff and makes another. When a resync started those reconciles (no
// record queued them), the new pod names the count of the failure, and
// the count the eviction, not the Job's creation: why is pi-2 here?
// because pi-1 was evicted. So too when herd's termination has stopped
// pi-1 for its eviction before the resync reads it: the count names the
// eviction, where the pod's end began, not the stop it led to, so the
// answer does not hang on how far pi-1's going had got when the Job
// looked.
func TestAResyncsRetryOfAnEvictedPodNamesTheCountOfItsEviction(t *testing.T) {
	for _, stopped := range []bool{false, true} {
		t.Run(fmt.Sprintf("stopped since: %v", stopped), func(t *testing.T) {
			h := newCauseHarness(t, piSpec(1, 1, 6, domain.RestartNever))
			h.reconcile()
			h.runs("pi-1")
			h.env.Clock.Step(time.Minute)
			h.pod("system:herd:drain", "pi-1", domain.DeletePod{})
			evicted, ok := h.env.Newest(pod1, domain.PodDeletionRequested{}.EventType())
			if !ok {
				t.Fatal("pi-1 was not evicted")
			}
			if stopped {
				ctx := events.WithMetadata(t.Context(), events.CausedBy(evicted, "system:herd:termination", "termination"))
				if _, err := h.env.Writer.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: "pi-1"}, domain.RecordTermination{Step: domain.StepStopped}); err != nil {
					t.Fatal(err)
				}
			}

			h.startResync()
			made := h.createdPod("pi-2")
			counted := h.lastCount()
			wantCause(t, made, counted)
			wantCause(t, counted, evicted)
		})
	}
}

// TestAResyncsPodsAfterASuccessNameItsCount: a Job of three completions,
// one at a time, makes its second pod once its first has succeeded. In
// a resync's reconcile the second names the count of that success.
func TestAResyncsPodsAfterASuccessNameItsCount(t *testing.T) {
	h := newCauseHarness(t, piSpec(1, 3, 6, domain.RestartNever))
	h.reconcile()
	h.runs("pi-1")
	h.pod("system:node:n1", "pi-1", domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodSucceeded}})
	succeeded, _ := h.env.Newest(pod1, domain.PodStatusUpdated{}.EventType())

	h.startResync()
	made := h.createdPod("pi-2")
	counted := h.lastCount()
	wantCause(t, made, counted)
	wantCause(t, counted, succeeded)
}

// TestAResyncsPodsInPlaceOfOneTakenAwayNameTheTaking: an operator takes
// a running pod from its Job, as in Kubernetes by relabelling it so that
// the Job's selector no longer matches it; the Job lets it go and makes
// another, which in a resync's reconcile names the letting go, not the
// Job's creation. A larger parallelism after that names the change of
// spec.
func TestAResyncsPodsInPlaceOfOneTakenAwayNameTheTaking(t *testing.T) {
	h := newCauseHarness(t, piSpec(1, 4, 6, domain.RestartNever))
	h.reconcile()
	h.runs("pi-1")
	h.env.Clock.Step(time.Minute)
	p, _ := h.env.GetPod("pi-1")
	h.pod("kubernetes-admin", "pi-1", domain.SetPodMetadata{Labels: map[string]string{"app": "taken"}, Annotations: p.Annotations, Finalizers: p.Finalizers})
	taken, ok := h.env.Newest(pod1, domain.PodMetadataChanged{}.EventType())
	if !ok {
		t.Fatal("pi-1 was not relabelled")
	}
	h.startResync()
	made := h.createdPod("pi-2")
	if _, ok := h.env.Newest(pod1, domain.PodOwnersChanged{}.EventType()); !ok {
		t.Fatalf("pi-1 was not let go by the Job: %v", h.env.PodTypes("pi-1"))
	}
	wantCause(t, made, taken)

	h.edit(func(s *domain.JobSpec) { s.Parallelism = 2 })
	changed, _ := h.env.Newest(domain.JobStream("default", "pi"), domain.JobChanged{}.EventType())
	h.startResync() // another resync, as after a restart
	wantCause(t, h.createdPod("pi-3"), changed)
}

// TestAResyncsRetryOfAPodGoneBeforeItWasCountedNamesItsDeletion: an
// operator takes the Job's tracking finalizer off its running pod (or
// the pod was made before Jobs held their pods), then deletes it, and
// herd's termination stops and finalizes it before the Job has looked:
// there is nothing left to count. The pod the Job makes in its place, in
// a resync's reconcile, names the operator's deletion (traced back from
// the stop), not the Job's creation.
func TestAResyncsRetryOfAPodGoneBeforeItWasCountedNamesItsDeletion(t *testing.T) {
	h := newCauseHarness(t, piSpec(1, 1, 6, domain.RestartNever))
	h.reconcile()
	h.runs("pi-1")
	h.env.Clock.Step(time.Minute)
	h.pod("kubernetes-admin", "pi-1", domain.RemovePodFinalizer{Finalizer: domain.JobTrackingFinalizer})
	deleted := h.env.DeletedByOperator("pi-1")
	h.startResync()
	wantCause(t, h.createdPod("pi-2"), deleted)
}

// TestAResyncsRetryAfterACountNamesTheCountThoughThePodWentLater: the
// Job counts an evicted pod failed; herd's termination then stops and
// finalizes it, and the Job's next count only forgets it. The pod made
// once the backoff is over, in a resync's reconcile, names the count of
// the failure — the stop that came after answered the same eviction,
// and the forgetting wants no pod.
func TestAResyncsRetryAfterACountNamesTheCountThoughThePodWentLater(t *testing.T) {
	h := newCauseHarness(t, piSpec(1, 1, 6, domain.RestartNever))
	h.reconcile()
	h.runs("pi-1")
	h.env.Clock.Step(time.Minute)
	h.pod("system:herd:drain", "pi-1", domain.DeletePod{})
	h.reconcile() // counts pi-1 failed; its backoff holds the retry
	counted := h.lastCount()
	evicted := h.env.Last(pod1, domain.PodDeletionRequested{}.EventType())
	stop := events.WithMetadata(t.Context(), events.CausedBy(evicted, "system:herd:termination", ""))
	if _, err := h.env.Writer.PodCommands().Execute(stop, domain.Key{Namespace: "default", Name: "pi-1"},
		domain.PodSequence{domain.RecordTermination{Step: domain.StepStopped}, domain.FinalizePod{Reason: "Terminated"}}); err != nil {
		t.Fatal(err)
	}
	h.startResync()
	wantCause(t, h.createdPod("pi-2"), counted)
}

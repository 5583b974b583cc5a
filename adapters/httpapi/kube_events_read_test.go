package httpapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"herd/domain"
	"herd/events"
	"herd/projections/watch"
)

// TestAnEventReaderLetsGoOfWhatLeftTheFleet: a reader that has read a
// stretch of churn (pods created and finalized, a name used again,
// ReplicaSets deleted, a CronJob's runs made, deleted and taken off its
// list) holds only what is still in the fleet and still gives each
// object's Events as it did the first time.
func TestAnEventReaderLetsGoOfWhatLeftTheFleet(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	ctx := t.Context()
	a.do(t, "web-01", register("web-01", nil))
	// The same pod name, three lives, and twenty pods that come and go.
	for life := range 3 {
		create := createPod("demo", "web")
		create.UID = fmt.Sprintf("uid-web-%d", life)
		a.pod(t, "demo", "web", create)
		a.pod(t, "demo", "web", domain.BindPod{NodeName: "web-01"})
		a.pod(t, "demo", "web", domain.DeletePod{})
		a.pod(t, "demo", "web", domain.FinalizePod{Reason: "Terminated"})
	}
	for i := range 20 {
		name := fmt.Sprintf("batch-%d", i)
		a.pod(t, "demo", name, createPod("demo", name))
		a.pod(t, "demo", name, domain.DeletePod{})
	}
	a.pod(t, "demo", "stays", createPod("demo", "stays"))
	for i := range 5 {
		name := fmt.Sprintf("rs-%d", i)
		labels := map[string]string{"ring": name}
		if _, err := a.w.ReplicaSetCommands().Execute(ctx, domain.Key{Namespace: "demo", Name: name}, domain.CreateReplicaSet{
			Meta: domain.ObjectMeta{Namespace: "demo", Name: name, UID: "uid-" + name},
			Spec: domain.ReplicaSetSpec{Selector: domain.LabelSelector{MatchLabels: labels},
				Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "i"}}}}},
		}); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if _, err := a.w.ReplicaSetCommands().Execute(ctx, domain.Key{Namespace: "demo", Name: name}, domain.DeleteReplicaSet{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A CronJob's runs: each made, taken on its active list, deleted by
	// an operator, and taken off (the reader must hold the deleted Job
	// until then, to say it went missing); the last one stays.
	cronJobs, jobs := a.w.CronJobCommands(), a.w.JobCommands()
	controller := events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:cronjob", Source: cronJobController.source})
	operator := events.WithMetadata(ctx, events.Metadata{Actor: "admin", Source: "httpapi"})
	tick := domain.Key{Namespace: "demo", Name: "tick"}
	template := domain.JobTemplate{Spec: domain.JobSpec{Parallelism: 1, BackoffLimit: 6, CompletionMode: domain.JobNonIndexed,
		Template: domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "c", Image: "i"}}}}}}
	cj, err := cronJobs.Execute(ctx, tick, domain.CreateCronJob{Meta: domain.ObjectMeta{Namespace: "demo", Name: "tick", UID: "uid-tick"},
		Spec: domain.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: template}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(i int) (domain.Key, domain.CronJobActiveJob) {
		name := fmt.Sprintf("tick-%d", i)
		k := domain.Key{Namespace: "demo", Name: name}
		if _, err := jobs.Execute(controller, k, domain.CreateJob{Meta: domain.ObjectMeta{Namespace: "demo", Name: name, UID: "uid-" + name,
			Owners: []domain.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "tick", UID: cj.UID, Controller: true}}},
			Spec: template.Spec}); err != nil {
			t.Fatal(err)
		}
		return k, domain.CronJobActiveJob{Name: name, UID: "uid-" + name}
	}
	record := func(active ...domain.CronJobActiveJob) {
		t.Helper()
		if _, err := cronJobs.Execute(controller, tick, domain.RecordCronJobStatus{Status: domain.CronJobStatus{Active: active}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		k, active := run(i)
		record(active)
		if _, err := jobs.Execute(operator, k, domain.DeleteJob{}); err != nil {
			t.Fatal(err)
		}
		record()
	}
	_, last := run(4)
	record(last)

	r := a.srv.newEventReader(eventScope{nodes: true, pods: true, workloads: true})
	evs, err := r.next(context.Background(), a.head(t))
	if err != nil {
		t.Fatal(err)
	}
	held := func() []string {
		var out []string
		for s := range r.pods {
			out = append(out, s)
		}
		for s := range r.rss {
			out = append(out, s)
		}
		for s := range r.jobs {
			out = append(out, s)
		}
		for s := range r.cronJobs {
			out = append(out, s)
		}
		for uid := range r.cronJobDeleted {
			out = append(out, "deleted "+uid)
		}
		return out
	}
	want := []string{"pod/demo/stays", "replicaset/demo/rs-0", "job/demo/tick-4", "cronjob/demo/tick"}
	if d := cmp.Diff(want, held(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("the reader holds (-want +got):\n%s", d)
	}
	var web, missing []string
	for _, e := range evs {
		switch {
		case e.object.Name == "web":
			web = append(web, string(e.object.UID)+" "+e.reason)
		case e.reason == "MissingJob":
			missing = append(missing, e.message)
		}
	}
	wantWeb := []string{"uid-web-0 Scheduled", "uid-web-0 Killing", "uid-web-1 Scheduled", "uid-web-1 Killing", "uid-web-2 Scheduled", "uid-web-2 Killing"}
	if d := cmp.Diff(wantWeb, web); d != "" {
		t.Errorf("the pod used three times (-want +got):\n%s", d)
	}
	if len(missing) != 4 {
		t.Errorf("missing Jobs said %q, want each of the 4 deleted runs", missing)
	}
}

// TestAnEventReaderFollowsANodeRegisteredAgain: a reader that has given a
// node's Events gives those of the node registered again under the same
// name with the new node's uid, and holds nothing of a node deleted.
func TestAnEventReaderFollowsANodeRegisteredAgain(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	a.do(t, "web-01", register("web-01", nil))
	a.do(t, "gone", register("gone", nil))
	r := a.srv.newEventReader(eventScope{nodes: true})
	uids := func() []string {
		t.Helper()
		evs, err := r.next(t.Context(), a.head(t))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range evs {
			out = append(out, e.object.Name+" "+string(e.object.UID)+" "+e.reason)
		}
		return out
	}
	if got := uids(); len(got) == 0 {
		t.Fatal("no Events for the registered nodes")
	}
	a.do(t, "web-01", domain.DeleteNode{})
	a.do(t, "gone", domain.DeleteNode{})
	again := register("web-01", nil)
	again.UID = "uid-web-01-again"
	a.do(t, "web-01", again)
	want := []string{"web-01 uid-web-01 Deleted", "gone uid-gone Deleted", "web-01 uid-web-01-again Registered"}
	if d := cmp.Diff(want, uids()); d != "" {
		t.Errorf("Events after the node was registered again (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"web-01": "uid-web-01-again"}, r.nodeUIDs); d != "" {
		t.Errorf("the reader holds the uids (-want +got):\n%s", d)
	}
}

// TestAnEventListFromBeforeANodeWasRegisteredAgainGivesEachNodeItsUID: a
// list of Events that starts before a node was deleted and registered
// again under its name gives the earlier node's Events the earlier
// node's uid, and the later node's the later one's, as kube-apiserver's
// stored Events each name the object they were about. The node is
// deleted at the end, so none of the uids can come from its view.
func TestAnEventListFromBeforeANodeWasRegisteredAgainGivesEachNodeItsUID(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	start := a.head(t)
	a.do(t, "web-01", register("web-01", nil))
	a.clk.Step(time.Minute)
	a.do(t, "web-01", domain.DeleteNode{})
	a.clk.Step(time.Minute)
	again := register("web-01", nil)
	again.UID = "uid-web-01-again"
	a.do(t, "web-01", again)
	a.clk.Step(time.Minute)
	a.do(t, "web-01", domain.DeleteNode{})

	r := a.srv.newEventReader(eventScope{nodes: true})
	r.pos = start
	evs, err := r.next(t.Context(), a.head(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, string(e.object.UID)+" "+e.reason)
	}
	want := []string{"uid-web-01 Registered", "uid-web-01 Deleted", "uid-web-01-again Registered", "uid-web-01-again Deleted"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Events of a node registered twice (-want +got):\n%s", d)
	}
}

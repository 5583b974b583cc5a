package job

import (
	"encoding/json"
	"testing"

	"herd/domain"
)

// TestIndexedJobRunsEachIndexOnce: an Indexed Job of three completions,
// two at a time, runs the pods of indexes 0 and 1, each with its index
// in its name, annotation and label; replaces the pod of index 0 by one
// of index 2 once it has succeeded; deletes a second pod of a running
// index; replaces a pod that failed by one of the same index; and is
// Complete with indexes 0-2 completed.
func TestIndexedJobRunsEachIndexOnce(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) {
		three := int32(3)
		s.Completions, s.Parallelism, s.CompletionMode = &three, 2, domain.JobIndexed
	})
	f.reconcile(t)
	f.want(t, []string{"pi-0-1", "pi-1-2"}, 2, 0, 0)
	for name, index := range map[string]string{"pi-0-1": "0", "pi-1-2": "1"} {
		p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: name}]
		if i, ok := domain.CompletionIndex(p); !ok || p.Annotations[domain.LabelJobCompletionIndex] != index ||
			p.Labels[domain.LabelJobCompletionIndex] != index || !f.job().Owns(p) {
			t.Errorf("pod %s: index %d (%v), annotations %v, labels %v: want index %s, the Job's", name, i, ok, p.Annotations, p.Labels, index)
		}
	}
	f.pods.run()
	f.pods.finish("pi-0-1", domain.PodSucceeded)
	f.reconcile(t)
	f.want(t, []string{"pi-0-1", "pi-1-2", "pi-2-3"}, 2, 1, 0)
	if st := f.job().Status; st.CompletedIndexes != "0" {
		t.Errorf("completed indexes %q, want 0", st.CompletedIndexes)
	}

	// A second pod of index 1, made by another hand: one is too many.
	twin := domain.PodFromTemplate("default", "pi-1-twin", "uid-twin", f.job().Spec.Template, f.job().OwnerReference())
	twin = indexedPod(twin, "pi", 1)
	if _, err := f.pods.Execute(t.Context(), domain.Key{Namespace: "default", Name: "pi-1-twin"}, twin); err != nil {
		t.Fatal(err)
	}
	f.pods.run()
	f.reconcile(t)
	if p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-1-twin"}]; !p.Terminating() {
		t.Errorf("the second pod of index 1 is not being deleted: %+v", p)
	}
	if p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-1-2"}]; p.Terminating() {
		t.Errorf("the first pod of index 1 is being deleted")
	}

	// Index 2's pod fails: a new pod of index 2 replaces it, after the
	// backoff (of two failures: the twin, deleted unfinished, counts as
	// one, as in Kubernetes).
	f.pods.finish("pi-2-3", domain.PodFailed)
	f.reconcile(t)
	f.clock.Step(maxBackoff)
	f.reconcile(t)
	if p, ok := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-2-4"}]; !ok || p.Annotations[domain.LabelJobCompletionIndex] != "2" {
		t.Fatalf("no new pod of index 2 after the failure: pods %v", f.pods.Names())
	}
	f.pods.run()
	f.pods.finish("pi-1-2", domain.PodSucceeded)
	f.pods.finish("pi-2-4", domain.PodSucceeded)
	f.reconcile(t)
	f.pods.finalize() // the twin, stopped, goes
	f.reconcile(t)
	st := f.job().Status
	if st.CompletedIndexes != "0-2" || st.Succeeded != 3 || st.Failed != 2 || !st.Is(domain.JobComplete) {
		t.Errorf("status %+v: want indexes 0-2, 3 succeeded, 2 failed, Complete", st)
	}
}

// TestIndexedPodNamesKeepTheirIndex: a Job whose name leaves no room
// keeps the index in its pods' names, its own name cut instead.
func TestIndexedPodNamesKeepTheirIndex(t *testing.T) {
	ids := Identities{Suffix: func() string { return "abcde" }}
	long := "a-job-whose-name-is-rather-long-and-goes-on-and-on-past-the-limit"
	got := indexedPodName(ids, long, 12345)
	if len(got) > 63 || got[len(got)-len("-12345-abcde"):] != "-12345-abcde" {
		t.Errorf("name %q (%d characters): want at most 63 ending in -12345-abcde", got, len(got))
	}
	if got := indexedPodName(ids, "pi", 7); got != "pi-7-abcde" {
		t.Errorf("name %q, want pi-7-abcde", got)
	}
}

// TestSuccessPolicy: an Indexed Job whose success policy wants its
// leader, index 0, succeeds once index 0 has: the pods still running
// are stopped, and the Job is Complete with reason SuccessPolicy, the
// other indexes never run.
func TestSuccessPolicy(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) {
		four := int32(4)
		s.Completions, s.Parallelism, s.CompletionMode = &four, 2, domain.JobIndexed
		s.SuccessPolicy = &domain.JobSuccessPolicy{Rules: []domain.SuccessPolicyRule{{SucceededIndexes: new("0")}}}
	})
	f.reconcile(t)
	f.pods.run()
	f.pods.finish("pi-1-2", domain.PodSucceeded)
	f.reconcile(t)
	f.want(t, []string{"pi-0-1", "pi-1-2", "pi-2-3"}, 2, 1, 0)
	f.pods.run()
	f.pods.finish("pi-0-1", domain.PodSucceeded)
	f.reconcile(t)
	f.want(t, []string{"pi-0-1", "pi-1-2", "pi-2-3"}, 0, 2, 0, "SuccessCriteriaMet/SuccessPolicy")
	if p := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: "pi-2-3"}]; !p.Terminating() {
		t.Errorf("index 2's pod runs on once the policy is met")
	}
	f.reconcile(t) // lets go of the stopped pod, uncounted
	f.pods.finalize()
	f.reconcile(t)
	f.want(t, []string{"pi-0-1", "pi-1-2"}, 0, 2, 0, "SuccessCriteriaMet/SuccessPolicy", "Complete/SuccessPolicy")
	if c, _ := f.job().Status.Condition(domain.JobComplete); c.Message != "Matched rules at index 0" || f.job().Status.CompletionTime.IsZero() {
		t.Errorf("complete: %+v, at %s", c, f.job().Status.CompletionTime)
	}
}

// TestIndexedPodsKnowTheirIndex: each pod of an Indexed Job has
// JOB_COMPLETION_INDEX in every container's environment, read from its
// label, and the hostname JOB-INDEX, as Kubernetes makes them; a
// template's own variable of that name and its own hostname stay, and
// the template itself is left as it was.
func TestIndexedPodsKnowTheirIndex(t *testing.T) {
	tmpl := domain.PodTemplate{Spec: domain.PodSpec{Containers: []domain.Container{
		{Name: "a", Image: "busybox", Unmodeled: json.RawMessage(`{"env":[{"name":"MODE","value":"x"}]}`)},
		{Name: "b", Image: "busybox"},
	}}}
	owner := domain.OwnerReference{Kind: "Job", Name: "pi", UID: "u", Controller: true}
	c := indexedPod(domain.PodFromTemplate("default", "pi-3-x", "uid", tmpl, owner), "pi", 3)
	want := `{"name":"JOB_COMPLETION_INDEX","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.labels['batch.kubernetes.io/job-completion-index']"}}}`
	if got := string(c.Spec.Containers[0].Unmodeled); got != `{"env":[{"name":"MODE","value":"x"},`+want+`]}` {
		t.Errorf("container a: %s", got)
	}
	if got := string(c.Spec.Containers[1].Unmodeled); got != `{"env":[`+want+`]}` {
		t.Errorf("container b: %s", got)
	}
	if got := string(c.Spec.Unmodeled); got != `{"hostname":"pi-3"}` {
		t.Errorf("pod spec: %s, want the hostname pi-3", got)
	}
	if string(tmpl.Spec.Containers[0].Unmodeled) != `{"env":[{"name":"MODE","value":"x"}]}` || tmpl.Spec.Containers[1].Unmodeled != nil {
		t.Errorf("the template changed: %+v", tmpl.Spec.Containers)
	}

	tmpl.Spec.Containers[0].Unmodeled = json.RawMessage(`{"env":[{"name":"JOB_COMPLETION_INDEX","value":"7"}]}`)
	tmpl.Spec.Unmodeled = json.RawMessage(`{"hostname":"mine"}`)
	c = indexedPod(domain.PodFromTemplate("default", "pi-3-x", "uid", tmpl, owner), "pi", 3)
	if got := string(c.Spec.Containers[0].Unmodeled); got != `{"env":[{"name":"JOB_COMPLETION_INDEX","value":"7"}]}` {
		t.Errorf("a template's own JOB_COMPLETION_INDEX: %s", got)
	}
	if got := string(c.Spec.Unmodeled); got != `{"hostname":"mine"}` {
		t.Errorf("a template's own hostname: %s", got)
	}
}

package app

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/fx"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// TestReconcilersCreateNothingInANamespaceBeingDeleted: the executors fx
// hands the reconcilers refuse a create in a namespace being deleted
// with Kubernetes' 403 and in one that does not exist with its 404,
// writing nothing; what is not a create passes, and a create in an
// Active namespace is written.
func TestReconcilersCreateNothingInANamespaceBeingDeleted(t *testing.T) {
	ctx := t.Context()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	log := store.Log()
	if err := projections.Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	w := projections.NewWriter(log, clock.RealClock{}, nil)
	for _, ns := range []string{"shop", "gone"} {
		if _, err := w.NamespaceCommands().Execute(ctx, domain.Key{Name: ns}, domain.CreateNamespace{Meta: domain.ObjectMeta{Name: ns, UID: "u-" + ns}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.NamespaceCommands().Execute(ctx, domain.Key{Name: "gone"}, domain.DeleteNamespace{}); err != nil {
		t.Fatal(err)
	}

	var g struct {
		fx.In
		Pods     domain.Executor[domain.Pod, domain.PodCommand]
		PodBatch domain.BatchExecutor[domain.Pod, domain.PodCommand]
		RS       domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
		Jobs     domain.Executor[domain.Job, domain.JobCommand]
		Revs     domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand]
	}
	app := fx.New(fx.NopLogger, fx.Supply(w, projections.NewNamespaceView(log)), commands, namespaceGate, fx.Populate(&g))
	if err := app.Err(); err != nil {
		t.Fatal(err)
	}

	pod := func(ns, name string) domain.CreatePod {
		return domain.CreatePod{Namespace: ns, Name: name, UID: "uid-" + name,
			Spec: domain.PodSpec{Containers: []domain.Container{{Name: "app", Image: "busybox"}}}}
	}
	podKey := func(ns, name string) domain.Key { return domain.Key{Namespace: ns, Name: name} }
	template := domain.PodTemplate{Labels: map[string]string{"app": "web"},
		Spec: domain.PodSpec{Containers: []domain.Container{{Name: "app", Image: "busybox"}}}}
	refusals := []struct {
		name string
		run  func(ns string) error
	}{
		{"a pod", func(ns string) error { _, err := g.Pods.Execute(ctx, podKey(ns, "p"), pod(ns, "p")); return err }},
		{"a batch of pods", func(ns string) error {
			_, _, err := g.PodBatch.ExecuteBatch(ctx, []domain.Keyed[domain.PodCommand]{
				{Key: podKey(ns, "b1"), Command: pod(ns, "b1")}, {Key: podKey(ns, "b2"), Command: pod(ns, "b2")}})
			return err
		}},
		{"a ReplicaSet", func(ns string) error {
			_, err := g.RS.Execute(ctx, podKey(ns, "web"), domain.CreateReplicaSet{Meta: domain.ObjectMeta{Namespace: ns, Name: "web", UID: "rs"},
				Spec: domain.ReplicaSetSpec{Replicas: 1, Selector: domain.LabelSelector{MatchLabels: template.Labels}, Template: template}})
			return err
		}},
		{"a Job", func(ns string) error {
			one := int32(1)
			spec := domain.JobSpec{Parallelism: 1, Completions: &one, BackoffLimit: 6, Template: template}
			spec.Template.Spec.RestartPolicy = domain.RestartNever
			_, err := g.Jobs.Execute(ctx, podKey(ns, "pi"), domain.CreateJob{Meta: domain.ObjectMeta{Namespace: ns, Name: "pi", UID: "job"}, Spec: spec})
			return err
		}},
		{"a ControllerRevision", func(ns string) error {
			_, err := g.Revs.Execute(ctx, podKey(ns, "web-1"), domain.CreateControllerRevision{Meta: domain.ObjectMeta{Namespace: ns, Name: "web-1", UID: "rev"},
				Spec: domain.ControllerRevisionSpec{Revision: 1, Data: []byte(`{}`)}})
			return err
		}},
	}
	head := func() int64 {
		h, err := store.Head(context.Background(), store.DB())
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, r := range refusals {
		before := head()
		err := r.run("gone")
		if !errors.Is(err, domain.ErrForbidden) || !strings.Contains(err.Error(), "unable to create new content in namespace gone because it is being terminated") {
			t.Errorf("%s in a namespace being deleted: %v, want 403 in Kubernetes' words", r.name, err)
		}
		if err := r.run("nowhere"); !errors.Is(err, domain.ErrNotFound) || !strings.Contains(err.Error(), `namespaces "nowhere" not found`) {
			t.Errorf("%s in no namespace: %v, want 404", r.name, err)
		}
		if after := head(); after != before {
			t.Errorf("%s refused moved the log from %d to %d", r.name, before, after)
		}
		if err := r.run("shop"); err != nil {
			t.Errorf("%s in an Active namespace: %v", r.name, err)
		}
	}
	// What is not a create passes: the pod made in shop is deleted.
	if _, err := g.Pods.Execute(ctx, podKey("shop", "p"), domain.DeletePod{}); err != nil {
		t.Errorf("deleting a pod: %v", err)
	}
}

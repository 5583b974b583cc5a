package projections

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
)

// TestStatefulSetView: StatefulSets written through their Commands —
// created, scaled, updated, given a status and deleted — read back as
// written on either engine, and a rebuild of the log gives the same
// rows.
func TestStatefulSetView(t *testing.T) { viewOnEachEngine(t, runStatefulSetView) }

func runStatefulSetView(t *testing.T, log events.Log) {
	ctx := t.Context()
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	w := NewWriter(log, clocktesting.NewFakeClock(t0), nil)
	sts := w.StatefulSetCommands()
	view := NewStatefulSetView(log)
	spec := domain.StatefulSetSpec{Replicas: 3, ServiceName: "web",
		Selector: domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: domain.PodTemplate{Labels: map[string]string{"app": "web"},
			Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: "nginx:1"}}}}}
	web, gone := domain.Key{Namespace: "default", Name: "web"}, domain.Key{Namespace: "default", Name: "gone"}
	for _, k := range []domain.Key{web, gone} {
		if _, err := sts.Execute(ctx, k, domain.CreateStatefulSet{Meta: domain.ObjectMeta{Namespace: k.Namespace, Name: k.Name, UID: "uid-" + k.Name}, Spec: spec}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := view.Get(ctx, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	next := cur.Spec
	next.Template.Spec.Containers = []domain.Container{{Name: "web", Image: "nginx:2"}}
	for _, cmd := range []domain.StatefulSetCommand{
		domain.ScaleStatefulSet{Replicas: 5},
		domain.UpdateStatefulSet{Spec: func() domain.StatefulSetSpec { s := next; s.Replicas = 5; return s }()},
		domain.RecordStatefulSetStatus{Status: domain.StatefulSetStatus{Replicas: 5, ReadyReplicas: 4, UpdateRevision: "web-abc"}},
	} {
		if cur, err = sts.Execute(ctx, web, cmd); err != nil {
			t.Fatal(err)
		}
	}
	head, _ := log.Head(ctx)
	if cur.Spec.Replicas != 5 || cur.Generation != 3 || cur.Version != 4 || cur.ResourceVersion != head || cur.Status.ReadyReplicas != 4 {
		t.Errorf("after scale, update and status: %+v (head %d)", cur, head)
	}
	if got, err := view.Get(ctx, "default", "web"); err != nil || !cmp.Equal(cur, got) {
		t.Errorf("view differs from the writer's answer (-writer +view):\n%s%v", cmp.Diff(cur, got), err)
	}
	if _, err := sts.Execute(ctx, gone, domain.DeleteStatefulSet{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "default", "gone"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	if list, _, err := view.List(ctx, "default"); err != nil || len(list) != 1 || list[0].Name != "web" {
		t.Errorf("list: %+v, %v", list, err)
	}
}

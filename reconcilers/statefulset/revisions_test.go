package statefulset

import (
	"slices"
	"strings"
	"testing"

	"herd/adapters/conversions"
	"herd/domain"
)

// history is the StatefulSet's revisions, "name=number" by number.
func (f *fixture) history(t *testing.T) string {
	t.Helper()
	revs, _, err := f.revs.List(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(revs, func(a, b domain.ControllerRevision) int { return int(a.Spec.Revision - b.Spec.Revision) })
	var out []string
	for _, r := range revs {
		out = append(out, r.Name+"="+string(rune('0'+r.Spec.Revision)))
	}
	return strings.Join(out, ",")
}

func image(img string) func(*domain.StatefulSetSpec) {
	return func(s *domain.StatefulSetSpec) { s.Template.Spec.Containers[0].Image = img }
}

// TestARevisionIsKeptOfEachTemplate: the first reconcile makes revision 1
// of the template, named as the pods' controller-revision-hash, owned by
// the StatefulSet, with the data kubectl rollout undo sends back; a new
// template is revision 2; the status names them.
func TestARevisionIsKeptOfEachTemplate(t *testing.T) {
	f := newFixture(t, func(s *domain.StatefulSetSpec) { s.Replicas = 0 })
	f.reconcile(t)
	s := f.set(t)
	v1 := Revision(s)
	if got := f.history(t); got != v1+"=1" {
		t.Fatalf("revisions %s, want %s=1", got, v1)
	}
	r, err := f.revs.Last(t.Context(), "default", v1)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := conversions.StatefulSetRevisionData(s)
	if !s.Owns(r) || string(r.Spec.Data) != string(data) || r.Labels[domain.LabelControllerRevisionHashKey] != strings.TrimPrefix(v1, "web-") || r.Labels["app"] != "web" {
		t.Fatalf("revision %+v", r)
	}
	if s.Status.CurrentRevision != v1 || s.Status.UpdateRevision != v1 {
		t.Fatalf("status %+v", s.Status)
	}
	f.update(t, image("nginx:2"))
	f.reconcile(t)
	v2 := Revision(f.set(t))
	if got := f.history(t); got != v1+"=1,"+v2+"=2" {
		t.Fatalf("revisions %s", got)
	}
	f.reconcile(t)
	if got := f.history(t); got != v1+"=1,"+v2+"=2" {
		t.Fatalf("a second reconcile changed the revisions: %s", got)
	}
}

// TestAnOldTemplateComingBackIsRenumbered: an undo to the first template
// makes no new revision: the first one's number becomes the newest, as
// Kubernetes' controller does.
func TestAnOldTemplateComingBackIsRenumbered(t *testing.T) {
	f := newFixture(t, func(s *domain.StatefulSetSpec) { s.Replicas = 0 })
	f.reconcile(t)
	v1 := Revision(f.set(t))
	f.update(t, image("nginx:2"))
	f.reconcile(t)
	v2 := Revision(f.set(t))
	f.update(t, image("nginx:1"))
	f.reconcile(t)
	if got := f.history(t); got != v2+"=2,"+v1+"=3" {
		t.Fatalf("revisions %s, want %s=2,%s=3", got, v2, v1)
	}
	if s := f.set(t); s.Status.UpdateRevision != v1 {
		t.Fatalf("status %+v", s.Status)
	}
}

// TestRevisionHistoryIsTrimmedToItsLimit: with revisionHistoryLimit 1,
// four templates leave the update revision and one before it; the
// revision a pod is still at is kept beyond the limit.
func TestRevisionHistoryIsTrimmedToItsLimit(t *testing.T) {
	one := int32(1)
	f := newFixture(t, func(s *domain.StatefulSetSpec) { s.Replicas, s.RevisionHistoryLimit = 0, &one })
	var names []string
	for _, img := range []string{"nginx:1", "nginx:2", "nginx:3", "nginx:4"} {
		f.update(t, image(img))
		f.reconcile(t)
		names = append(names, Revision(f.set(t)))
	}
	if got := f.history(t); got != names[2]+"=3,"+names[3]+"=4" {
		t.Fatalf("revisions %s, want the last two of %v", got, names)
	}

	// A pod at an old revision keeps it.
	f = newFixture(t, func(s *domain.StatefulSetSpec) {
		s.Replicas, s.RevisionHistoryLimit, s.UpdateStrategy = 1, new(int32), domain.StatefulSetUpdateStrategy{Type: domain.StatefulSetOnDelete}
	})
	f.reconcile(t)
	f.ready("web-0")
	v1 := Revision(f.set(t))
	f.update(t, image("nginx:2"))
	f.reconcile(t)
	f.update(t, image("nginx:3"))
	f.reconcile(t)
	v3 := Revision(f.set(t))
	if got := f.history(t); got != v1+"=1,"+v3+"=3" {
		t.Fatalf("revisions %s, want web-0's %s and the update revision %s", got, v1, v3)
	}
}

// TestAPodBelowThePartitionIsMadeAgainFromItsRevision: during a rolling
// update held at partition 2, web-0 lost is made again from the current
// (old) revision's template, and web-2 lost from the new one.
func TestAPodBelowThePartitionIsMadeAgainFromItsRevision(t *testing.T) {
	f := newFixture(t, nil)
	old, rev := f.startedThenRolled(t, 2)
	f.reconcile(t)
	f.gone()
	f.reconcile(t)
	f.ready("web-2")
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	for _, n := range []string{"web-0", "web-2"} {
		delete(f.pods.Pods, domain.Key{Namespace: "default", Name: n})
		f.reconcile(t)
		f.ready(n)
	}
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-0"}]; p.Spec.Containers[0].Image != "nginx:1" || p.Labels[domain.LabelControllerRevisionHash] != old {
		t.Errorf("web-0, below the partition, came back as %v %v; want %s", p.Labels, p.Spec.Containers, old)
	}
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-2"}]; p.Spec.Containers[0].Image != "nginx:2" || p.Labels[domain.LabelControllerRevisionHash] != rev {
		t.Errorf("web-2, above the partition, came back as %v %v; want %s", p.Labels, p.Spec.Containers, rev)
	}
	if s := f.set(t); s.Status.CurrentRevision != old || s.Status.UpdateRevision != rev || s.Status.CurrentReplicas != 2 || s.Status.UpdatedReplicas != 1 {
		t.Errorf("status %+v", s.Status)
	}
}

package garbagecollector

import (
	"errors"
	"testing"

	"herd/domain"
	"herd/projections"
)

// TestAStatefulSetsDependentsGoWithIt: what a StatefulSet owns (its
// ControllerRevisions among them) goes after it in the background; in the foreground, before it, and the
// StatefulSet is finished once nothing blocks it; orphaned, it stays,
// its reference taken off.
func TestAStatefulSetsDependentsGoWithIt(t *testing.T) {
	h := newHarness(t)
	sets := projections.NewStatefulSetView(h.env.Log)
	create := func(name string) domain.OwnerReference {
		t.Helper()
		labels := map[string]string{"app": name}
		s, err := h.env.Writer.StatefulSetCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateStatefulSet{
			Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name},
			Spec: domain.StatefulSetSpec{Replicas: 1, Selector: domain.LabelSelector{MatchLabels: labels},
				Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "i"}}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return s.OwnerReference()
	}
	del := func(name string, p domain.Propagation) {
		t.Helper()
		if _, err := h.env.Writer.StatefulSetCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.DeleteStatefulSet{Propagation: p}); err != nil {
			t.Fatal(err)
		}
	}
	back, orphan := create("back"), create("orphan")
	h.configMap("of-back", back)
	h.configMap("of-fore", create("fore"))
	h.configMap("of-orphan", orphan)
	revisions := projections.NewControllerRevisionView(h.env.Log)
	for name, ref := range map[string]domain.OwnerReference{"back-rev": back, "orphan-rev": orphan} {
		if _, err := h.env.Writer.ControllerRevisionCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateControllerRevision{
			Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{ref}},
			Spec: domain.ControllerRevisionSpec{Data: []byte(`{"spec":{}}`), Revision: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	h.reconcile()
	del("back", domain.PropagateBackground)
	del("fore", domain.PropagateForeground)
	del("orphan", domain.PropagateOrphan)
	if s, err := sets.Get(t.Context(), "default", "fore"); err != nil || s.DeletionRequestedAt == nil {
		t.Fatalf("fore after its deletion in the foreground: %+v, %v", s, err)
	}
	h.reconcile()
	h.reconcile()
	for _, name := range []string{"of-back", "of-fore"} {
		if _, ok := h.configMapOwners(name); ok {
			t.Errorf("%s outlived its StatefulSet", name)
		}
	}
	if owners, ok := h.configMapOwners("of-orphan"); !ok || len(owners) != 0 {
		t.Errorf("orphaned: exists %v, owners %+v; want it kept without its reference", ok, owners)
	}
	if _, err := revisions.Get(t.Context(), "default", "back-rev"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a revision outlived its StatefulSet: %v", err)
	}
	if r, err := revisions.Get(t.Context(), "default", "orphan-rev"); err != nil || len(r.Owners) != 0 {
		t.Errorf("orphaned revision: %+v, %v; want it kept without its reference", r, err)
	}
	if _, err := sets.Get(t.Context(), "default", "fore"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("fore stays, being deleted, with nothing left to block it: %v", err)
	}
}

package daemonset

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

type fakeRevisions = reconcilerstest.Store[domain.ControllerRevision, domain.ControllerRevisionCommand]

// withRevisions gives the rig's reconciler revisions to keep, and returns
// them.
func (g *rig) withRevisions() *fakeRevisions {
	revs := reconcilerstest.NewStore(g.clock.Now, domain.DecideControllerRevision, func(r domain.ControllerRevision, ev domain.Event) domain.ControllerRevision {
		r = domain.EvolveControllerRevision(r, ev)
		r.ResourceVersion++
		return r
	})
	g.r.WithRevisions(revs, revs, conversions.DaemonSetRevisionData)
	return revs
}

// revisionHistory is "name=number" of every revision, by number.
func revisionHistory(t *testing.T, revs *fakeRevisions) string {
	t.Helper()
	all, _, err := revs.List(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b domain.ControllerRevision) int { return int(a.Spec.Revision - b.Spec.Revision) })
	var out []string
	for _, r := range all {
		out = append(out, r.Name+"="+strconv.FormatInt(r.Spec.Revision, 10))
	}
	return strings.Join(out, ",")
}

// setImage gives default/logs a new image, as an update does.
func (g *rig) setImage(t *testing.T, image string) domain.DaemonSet {
	t.Helper()
	k := domain.Key{Namespace: "default", Name: "logs"}
	ds := g.sets.Objects[k]
	spec := ds.Spec
	spec.Template.Spec.Containers = []domain.Container{{Name: "fluent", Image: image}}
	got, err := g.sets.Execute(t.Context(), k, domain.UpdateDaemonSet{Meta: domain.ObjectMeta{Labels: ds.Labels, Annotations: ds.Annotations}, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestADaemonSetKeepsARevisionOfEachTemplate: the DaemonSet's template is
// revision 1, named NAME-HASH and labelled with the hash its pods carry,
// owned by it, with the data kubectl rollout undo daemonset sends back;
// a new template is revision 2; the first template again renumbers its
// revision 3; the oldest beyond revisionHistoryLimit goes, but not one a
// pod is still at.
func TestADaemonSetKeepsARevisionOfEachTemplate(t *testing.T) {
	ds := logsDS()
	ds.Spec.RevisionHistoryLimit = 0
	g := newRig(t, []domain.DaemonSet{ds}, nil)
	revs := g.withRevisions()
	g.reconcile(t, logsKey)
	v1 := revisionName(ds)
	if got := revisionHistory(t, revs); got != v1+"=1" {
		t.Fatalf("revisions %s, want %s=1", got, v1)
	}
	r, err := revs.Last(t.Context(), "default", v1)
	data, _ := conversions.DaemonSetRevisionData(ds)
	if err != nil || !ds.Owns(r) || r.Labels[domain.LabelControllerRevisionHash] != templateHash(ds) || string(r.Spec.Data) != string(data) {
		t.Fatalf("revision %+v, %v", r, err)
	}
	g.settled(t, logsKey)
	if got := revisionHistory(t, revs); got != v1+"=1" {
		t.Fatalf("a second reconcile changed the revisions: %s", got)
	}

	v2 := revisionName(g.setImage(t, "fluent-bit:4"))
	g.reconcile(t, logsKey)
	// No pod is at the first template: with a limit of 0 it goes.
	if got := revisionHistory(t, revs); got != v2+"=2" {
		t.Fatalf("revisions %s, want %s=2", got, v2)
	}
	g.setImage(t, "fluent-bit:3")
	g.reconcile(t, logsKey)
	if got := revisionHistory(t, revs); got != v1+"=3" {
		t.Fatalf("revisions %s, want %s=3", got, v1)
	}

	// A pod at an old template keeps its revision.
	ds = logsDS()
	ds.Spec.RevisionHistoryLimit = 0
	g = newRig(t, []domain.DaemonSet{ds}, []domain.Node{node("n1")}, daemonPod(ds, "logs-a", "n1"))
	revs = g.withRevisions()
	g.reconcile(t, logsKey)
	g.setImage(t, "fluent-bit:4")
	g.reconcile(t, logsKey)
	v2 = revisionName(g.sets.Objects[domain.Key{Namespace: "default", Name: "logs"}])
	if got := revisionHistory(t, revs); got != v1+"=1,"+v2+"=2" {
		t.Fatalf("revisions %s, want the pod's %s kept beside %s", got, v1, v2)
	}
}

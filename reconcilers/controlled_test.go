package reconcilers_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// controlledPod is a running pod of default that herd made, controlled
// by the ReplicaSet of uid called owner, or by nothing when owner is "".
func controlledPod(name, owner, uid string) domain.Pod {
	p := domain.Pod{Namespace: "default", Name: name, UID: "uid-" + name, Version: 2, Source: domain.SourceHerd,
		Spec:   domain.PodSpec{NodeName: "n1", TerminationGracePeriodSeconds: 30, Containers: []domain.Container{{Name: "c", Image: "i"}}},
		Status: domain.PodStatus{Phase: domain.PodRunning}}
	if owner != "" {
		p.Owners = []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner, UID: uid, Controller: true}}
	}
	return p
}

// TestControlledReadsAnObjectsPodsAndNotesTheirOwners: the pods of an
// object are herd's own that an object of the kind and name controls,
// with the orphans when asked; their owners map their events to it.
func TestControlledReadsAnObjectsPodsAndNotesTheirOwners(t *testing.T) {
	kubelets := controlledPod("web-k", "web", "uid-web")
	kubelets.Source = domain.SourceKubelet
	pods := reconcilerstest.NewPods(time.Now, controlledPod("web-1", "web", "uid-web"), controlledPod("api-1", "api", "uid-api"),
		controlledPod("stray", "", ""), kubelets)
	c := reconcilers.NewControlled("ReplicaSet", pods, pods, 0, zap.NewNop())
	key := reconcilers.Key{Aggregate: domain.ReplicaSetAggregate, Namespace: "default", Name: "web"}

	got, err := c.Read(t.Context(), key, false)
	if err != nil || !slices.Equal(names(got), []string{"web-1"}) {
		t.Errorf("without orphans: %v, %v; want web-1", names(got), err)
	}
	got, err = c.Read(t.Context(), key, true)
	if err != nil || !slices.Equal(names(got), []string{"stray", "web-1"}) {
		t.Errorf("with orphans: %v, %v; want stray and web-1", names(got), err)
	}
	if want := []string{"ReplicaSet/web", ""}; !slices.Equal(pods.Asked[1].Controllers, want) || *pods.Asked[1].Source != domain.SourceHerd {
		t.Errorf("asked for %+v", pods.Asked[1])
	}
	if o := c.Owners().Get(domain.Key{Namespace: "default", Name: "web-1"}); o != "web" {
		t.Errorf("owner of web-1 noted as %q", o)
	}

	pods.ListErr = errors.New("view gone")
	if _, err := c.Read(t.Context(), key, false); !errors.Is(err, pods.ListErr) || !strings.Contains(err.Error(), "list pods of namespace default") {
		t.Errorf("a failed list: %v", err)
	}
}

// TestControlledCollectsInBatches: the pods of an object that is gone
// are deleted, those of an owner deleted orphaning them only released,
// at most the batch a unit of work.
func TestControlledCollectsInBatches(t *testing.T) {
	var all []domain.Pod
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		all = append(all, controlledPod("web-"+n, "web", "uid-old"))
	}
	pods := reconcilerstest.NewPods(time.Now, all...)
	c := reconcilers.NewControlled("ReplicaSet", pods, pods, 2, zap.NewNop())
	abandoned := reconcilers.Filter(all, reconcilers.AbandonedBy("ReplicaSet", "web", "uid-new"))
	if len(abandoned) != 5 {
		t.Fatalf("abandoned by a web of another uid: %v", names(abandoned))
	}
	if err := c.Collect(t.Context(), "default/web", abandoned[:2], "uid-old"); err != nil {
		t.Fatal(err)
	}
	if err := c.Collect(t.Context(), "default/web", abandoned[2:], ""); err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 2, 1}; !slices.Equal(pods.Batches, want) {
		t.Errorf("batches %v, want %v", pods.Batches, want)
	}
	for name, p := range pods.Pods {
		released := name.Name == "web-a" || name.Name == "web-b"
		if released != (len(p.Owners) == 0) || released == p.Terminating() {
			t.Errorf("%s: owners %v, terminating %v; want released %v, else deleted", name.Name, p.Owners, p.Terminating(), released)
		}
	}
	if err := c.Collect(t.Context(), "default/web", nil, ""); err != nil || len(pods.Batches) != 3 {
		t.Errorf("nothing to collect: %v, batches %v", err, pods.Batches)
	}
	pods.BatchErr = errors.New("disk full")
	if err := c.Collect(t.Context(), "default/web", all[:1], ""); !errors.Is(err, pods.BatchErr) ||
		!strings.Contains(err.Error(), "collect pods of replicaset default/web, which is gone") {
		t.Errorf("a failed collection: %v", err)
	}
}

// TestControlledDeletesInTheForeground: an object deleted in the
// foreground has its own pods deleted, not another's nor those already
// going.
func TestControlledDeletesInTheForeground(t *testing.T) {
	going := controlledPod("web-going", "web", "uid-web")
	going.Deletion = &domain.PodDeletion{}
	fake := reconcilerstest.NewPods(time.Now, controlledPod("web-1", "web", "uid-web"), controlledPod("other", "web", "uid-other"), going)
	c := reconcilers.NewControlled("ReplicaSet", fake, fake, 0, zap.NewNop())
	all, _, _ := fake.List(t.Context(), projections.PodFilter{})
	if err := c.DeleteForeground(t.Context(), "default/web", "uid-web", all); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fake.Batches, []int{1}) || !fake.Pods[domain.Key{Namespace: "default", Name: "web-1"}].Terminating() ||
		fake.Pods[domain.Key{Namespace: "default", Name: "other"}].Terminating() {
		t.Errorf("batches %v, pods %v", fake.Batches, fake.Written)
	}
}

// names are the names of pods, sorted.
func names(pods []domain.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	slices.Sort(out)
	return out
}

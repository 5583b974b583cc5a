package deployment

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"herd/domain"
)

// countingReplicaSets counts the ReplicaSet rows the reconciler reads.
type countingReplicaSets struct {
	ReplicaSetLister
	rows atomic.Int64
}

func (c *countingReplicaSets) Controlled(ctx context.Context, namespace string, controllers []string) ([]domain.ReplicaSet, int64, error) {
	rss, head, err := c.ReplicaSetLister.Controlled(ctx, namespace, controllers)
	c.rows.Add(int64(len(rss)))
	return rss, head, err
}

// TestReadsDoNotGrowWithTheNamespace fails when reconciling one
// Deployment reads more ReplicaSet rows beside 10,000 ReplicaSets of
// other Deployments in its namespace than beside 10.
func TestReadsDoNotGrowWithTheNamespace(t *testing.T) {
	measure := func(t *testing.T, others int) int64 {
		h := newHarness(t)
		// Written from 16 goroutines, which the unit of work commits in
		// groups.
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < others; i += 16 {
					name := fmt.Sprintf("other-%05d", i)
					labels := map[string]string{"app": name}
					_, err := h.env.Writer.ReplicaSetCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name + "-x"}, domain.CreateReplicaSet{
						Meta: domain.ObjectMeta{Namespace: "default", Name: name + "-x", UID: "uid-" + name, Owners: []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: "uid-d-" + name, Controller: true}}},
						Spec: domain.ReplicaSetSpec{Replicas: 1, Selector: domain.LabelSelector{MatchLabels: labels},
							Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "x"}}}}},
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		counting := &countingReplicaSets{ReplicaSetLister: h.rss}
		h.r.replicaSets = counting
		h.create(webSpec(3, "nginx:1"))
		h.reconcile() // makes web's ReplicaSet
		h.settle(-1)
		h.reconcile() // finds it, records the status
		return counting.rows.Load()
	}
	few, many := measure(t, 10), measure(t, 10_000)
	if few != many || many > 1 {
		t.Errorf("two reconciles of web read %d ReplicaSet rows beside 10 other Deployments' and %d beside 10,000; want the same, web's own one", few, many)
	}
}

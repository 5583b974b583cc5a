package replicaset

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// countingPods counts the pod rows the reconciler reads.
type countingPods struct {
	PodLister
	rows atomic.Int64
}

func (c *countingPods) List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error) {
	pods, head, err := c.PodLister.List(ctx, f)
	c.rows.Add(int64(len(pods)))
	return pods, head, err
}

// TestReadsDoNotGrowWithTheNamespace fails when reconciling one
// ReplicaSet reads more pod rows beside 10,000 pods of other ReplicaSets
// in its namespace than beside 10: a reconcile reads its own pods and
// the orphans it may adopt, through the pod view's controller index.
func TestReadsDoNotGrowWithTheNamespace(t *testing.T) {
	measure := func(t *testing.T, others int) int64 {
		env := reconcilerstest.New(t)
		for start := 0; start < others; start += 1000 {
			var batch []domain.Keyed[domain.PodCommand]
			for i := start; i < min(start+1000, others); i++ {
				name := fmt.Sprintf("other-%05d", i)
				c := reconcilerstest.CreatePod(name+"-p", "", 30)
				c.Owners = []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: "uid-" + name, Controller: true}}
				batch = append(batch, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: "default", Name: c.Name}, Command: c})
			}
			if _, _, err := env.Writer.PodBatch().ExecuteBatch(t.Context(), batch); err != nil {
				t.Fatal(err)
			}
		}
		sets := newFakeReplicaSets(env.Clock.Now, webRS(3))
		pods := &countingPods{PodLister: env.Pods}
		r, err := New(DefaultConfig(), sets, pods, podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, sets, env.Clock, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the first makes web's three pods, the second finds them
			if _, err := r.Reconcile(t.Context(), webKey); err != nil {
				t.Fatal(err)
			}
		}
		return pods.rows.Load()
	}
	few, many := measure(t, 10), measure(t, 10_000)
	if few != many || many > 3 {
		t.Errorf("two reconciles of web read %d pod rows beside 10 other ReplicaSets' pods and %d beside 10,000; want the same, web's own 3", few, many)
	}
}

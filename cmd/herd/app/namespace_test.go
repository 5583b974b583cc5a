package app

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// TestANamespacesDeletionCoversEveryNamespacedKind: every kind herd
// keeps in a namespace wakes a namespace being deleted when one of its
// objects goes (its Deleted event, a pod's finalization), which the
// reconciler watches only for the kinds it deletes: a kind added to the
// domain and not to namespaceReconciler fails here instead of outliving
// its namespace.
func TestANamespacesDeletionCoversEveryNamespacedKind(t *testing.T) {
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	log := store.Log()
	if err := projections.Migrate(t.Context(), log); err != nil {
		t.Fatal(err)
	}
	v := namespaceViews{
		Namespaces: projections.NewNamespaceView(log), Pods: projections.NewPodView(log), ConfigMaps: projections.NewConfigMapView(log),
		Leases: projections.NewLeaseView(log), Deployments: projections.NewDeploymentView(log), ReplicaSets: projections.NewReplicaSetView(log),
		StatefulSets: projections.NewStatefulSetView(log), DaemonSets: projections.NewDaemonSetView(log), CronJobs: projections.NewCronJobView(log),
		Jobs: projections.NewJobView(log), PodDisruptionBudgets: projections.NewPodDisruptionBudgetView(log),
		ControllerRevisions: projections.NewControllerRevisionView(log),
	}
	r := namespaceReconciler(projections.NewWriter(log, clock.RealClock{}, nil), v, clock.RealClock{}, zap.NewNop())
	for _, a := range domain.Aggregates() {
		if !a.Namespaced() {
			continue
		}
		var ends []string
		for _, e := range a.Events() {
			if strings.HasSuffix(e.Type, "Deleted") || e.Type == (domain.PodFinalized{}).EventType() {
				ends = append(ends, e.Type)
			}
		}
		woken := slices.ContainsFunc(ends, func(typ string) bool {
			keys := r.Watches().KeysFor(events.Record{Stream: a.Stream("shop/x"), Type: typ})
			return len(keys) == 1 && keys[0].String() == "namespace/shop"
		})
		if !woken {
			t.Errorf("%s: none of its ends %v wakes a namespace being deleted: add the kind to namespaceReconciler", a.Name(), ends)
		}
	}
}

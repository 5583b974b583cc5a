package daemonset

import (
	"testing"

	"go.uber.org/zap"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// TestARevisionDeletedByHandIsMadeAgainAtOnce: the revision of a
// DaemonSet an operator deletes reaches the DaemonSet through the log
// and is made again at once, not at the next resync
// (reconcilerstest.RevisionComesBackAtOnce).
func TestARevisionDeletedByHandIsMadeAgainAtOnce(t *testing.T) {
	env := reconcilerstest.New(t)
	dss := env.Writer.DaemonSetCommands()
	r, err := New(DefaultConfig(), projections.NewDaemonSetView(env.Log), env.Nodes, env.Pods,
		podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, dss, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.WithRevisions(projections.NewControllerRevisionView(env.Log), env.Writer.ControllerRevisionCommands(), conversions.DaemonSetRevisionData)
	reconcilerstest.RevisionComesBackAtOnce(t, env, r, func() string {
		env.ReadyNode("n1", nil)
		ds := logsDS()
		created, err := dss.Execute(t.Context(), ds.Key(), domain.CreateDaemonSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "logs", UID: ds.UID}, Spec: ds.Spec})
		if err != nil {
			t.Fatal(err)
		}
		return revisionName(created)
	})
}

package daemonset

import (
	"errors"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/events/eventstest"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestARevisionDeletedByHandIsMadeAgainAtOnce runs the reconciler under
// the manager, on herd's views and a real log, with herd's clock
// standing still: the revision an operator deletes reaches its
// DaemonSet through the log and is made again, with no resync beyond
// the one the reconciler makes as it starts; and the reconcile that the
// revision's own creation queues writes nothing more.
func TestARevisionDeletedByHandIsMadeAgainAtOnce(t *testing.T) {
	env := reconcilerstest.New(t)
	view := projections.NewDaemonSetView(env.Log)
	revs := projections.NewControllerRevisionView(env.Log)
	revCmds := env.Writer.ControllerRevisionCommands()
	dss := env.Writer.DaemonSetCommands()
	r, err := New(DefaultConfig(), view, env.Nodes, env.Pods, podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, dss, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.WithRevisions(revs, revCmds, conversions.DaemonSetRevisionData)
	m, err := reconcilers.NewManager(reconcilers.Params{
		Config:      reconcilers.Config{Enabled: []string{"*"}, Workers: 2, MaxRetries: 5},
		Reconcilers: []reconcilers.Reconciler{r}, Store: env.Store, Clock: env.Clock,
		Logger: zap.NewNop(), Metrics: reconcilers.NewMetrics(prometheus.NewRegistry()),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(t.Context()) })
	settled := func() bool {
		st, _ := m.Status(r.Name())
		return st.Settled(env.Head())
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { st, _ := m.Status(r.Name()); return st.Resyncs == 1 && settled() },
		"the reconciler makes its first resync and settles")

	env.ReadyNode("n1", nil)
	ds := logsDS()
	created, err := dss.Execute(t.Context(), ds.Key(), domain.CreateDaemonSet{Namespace: "default", Name: "logs", UID: ds.UID, Spec: ds.Spec})
	if err != nil {
		t.Fatal(err)
	}
	name := domain.DaemonSetRevision(created)
	exists := func() bool {
		rev, err := revs.Last(t.Context(), "default", name)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil && rev.Exists()
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return exists() && settled() }, "revision %s is made", name)
	made := env.Head()

	if _, err := revCmds.Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.DeleteControllerRevision{}); err != nil {
		t.Fatal(err)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return exists() && settled() }, "revision %s is made again", name)
	if st, _ := m.Status(r.Name()); st.Resyncs != 1 {
		t.Errorf("%d resyncs: the revision came back through a resync, not its deletion", st.Resyncs)
	}
	var types []string
	for _, rec := range env.Records(made) {
		types = append(types, rec.Type)
	}
	if want := []string{"ControllerRevisionDeleted", "ControllerRevisionCreated"}; !slices.Equal(types, want) {
		t.Errorf("after the deletion the log has %v, want %v: the reconcile its own revision queued wrote more", types, want)
	}
}

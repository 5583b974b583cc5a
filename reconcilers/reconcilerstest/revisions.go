package reconcilerstest

import (
	"errors"
	"slices"
	"testing"

	"herd/domain"
	"herd/events/eventstest"
	"herd/projections"
	"herd/reconcilers"
)

// RevisionComesBackAtOnce runs r, a reconciler that keeps its owner's
// ControllerRevisions, under the manager on e's views and log with herd's
// clock standing still; create makes the owner and names the revision r
// should make of it. The revision an operator deletes must reach the
// owner through the log and be made again with no resync beyond the one
// r makes as it starts, and the reconcile that the revision's own
// creation queues must write nothing more.
func RevisionComesBackAtOnce(t *testing.T, e *Env, r reconcilers.Reconciler, create func() (revision string)) {
	t.Helper()
	m := StartManager(t, reconcilers.Params{Reconcilers: []reconcilers.Reconciler{r}, Store: e.Store, Clock: e.Clock})
	settled := func() bool {
		st, _ := m.Status(r.Name())
		return st.Settled(e.Head())
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { st, _ := m.Status(r.Name()); return st.Resyncs == 1 && settled() },
		"the reconciler makes its first resync and settles")

	name := create()
	revs := projections.NewControllerRevisionView(e.Log)
	exists := func() bool {
		rev, err := revs.Last(t.Context(), "default", name)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil && rev.Exists()
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return exists() && settled() }, "revision %s is made", name)
	made := e.Head()

	if _, err := e.Writer.ControllerRevisionCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.DeleteControllerRevision{}); err != nil {
		t.Fatal(err)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return exists() && settled() }, "revision %s is made again", name)
	if st, _ := m.Status(r.Name()); st.Resyncs != 1 {
		t.Errorf("%d resyncs: the revision came back through a resync, not its deletion", st.Resyncs)
	}
	var types []string
	for _, rec := range e.Records(made) {
		types = append(types, rec.Type)
	}
	if want := []string{"ControllerRevisionDeleted", "ControllerRevisionCreated"}; !slices.Equal(types, want) {
		t.Errorf("after the deletion the log has %v, want %v: the reconcile its own revision queued wrote more", types, want)
	}
}

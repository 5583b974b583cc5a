package httpapi

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections/watch"
)

// TestTheHubHoldsTheWritersStatesAsItsOwnFoldWouldHave: the watch hub
// takes the node and Lease states herd's writes commit rather than
// folding their events again (Writer.ShareStatesWith), and what watches
// and lists show from them is what a hub that folded every event itself
// shows: the same object, byte for byte, and the same state, field for
// field, through registration, status reports, renewals, a cordon, a
// label and deletions sent by client-go in its default protobuf.
func TestTheHubHoldsTheWritersStatesAsItsOwnFoldWouldHave(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		hubAdoptsAsItWouldFold(t, store.Log())
	})
	t.Run("postgres", func(t *testing.T) {
		hubAdoptsAsItWouldFold(t, eventstest.OpenPostgres(t, pgtest.URL(t)))
	})
}

func hubAdoptsAsItWouldFold(t *testing.T, log events.Log) {
	ctx := t.Context()
	var deps Deps
	a := newTestAPIWith(t, log, nil, func(d *Deps) { deps = *d })
	a.writer.ShareStatesWith(a.Watch)

	// A second hub on the same log that is offered nothing: it folds
	// every event it reads.
	folding, err := watch.NewHub(log, watch.Config{PollInterval: time.Millisecond}, a.clock, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	deps.Watch = folding
	if _, err := NewServer(deps, Config{}); err != nil {
		t.Fatal(err)
	}
	if err := folding.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(folding.Stop)

	// Each write is read by the hub before the next is sent: a hub
	// behind by two writes of one stream finds only the newer one's
	// state offered and folds the older (a stream keeps one offer), which
	// is no failure of adoption, and on a slow machine it happens.
	caughtUp := func() {
		t.Helper()
		head, err := log.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return a.Watch.Position() >= head }, "the hub reads up to %d", head)
	}
	cs, _ := recordingClientset(t, a.serve(t).URL, nil)
	leases := cs.CoordinationV1().Leases("kube-node-lease")
	names := []string{"n1", "n2", "n3"}
	for _, name := range names {
		n := benchNode(name)
		n.Annotations = map[string]string{"node.alpha.kubernetes.io/ttl": "0"}
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		caughtUp()
		renew := metav1.NewMicroTime(a.clock.Now())
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To(name), LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &renew,
		}}
		if _, err := leases.Create(ctx, l, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		caughtUp()
	}
	for step := range 3 {
		a.clock.Step(10 * time.Second)
		for _, name := range names {
			l, err := leases.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			renew := metav1.NewMicroTime(a.clock.Now())
			l.Spec.RenewTime = &renew
			if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			caughtUp()
		}
		// A status report that flips a condition, then one that only
		// says the node is still there.
		n, err := cs.CoreV1().Nodes().Get(ctx, names[step], metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n.Status.Conditions {
			c := &n.Status.Conditions[i]
			c.LastHeartbeatTime = metav1.NewTime(a.clock.Now())
			if c.Type == corev1.NodeMemoryPressure {
				c.Status, c.Reason = corev1.ConditionTrue, "KubeletHasInsufficientMemory"
			}
		}
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		caughtUp()
	}
	if _, err := cs.CoreV1().Nodes().Patch(ctx, "n2", types.StrategicMergePatchType,
		[]byte(`{"spec":{"unschedulable":true},"metadata":{"labels":{"zone":"b"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	caughtUp()
	if err := leases.Delete(ctx, "n3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	caughtUp()
	if err := cs.CoreV1().Nodes().Delete(ctx, "n3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	caughtUp()

	head, err := log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, resource := range []string{"nodes", "leases"} {
		took := listed(ctx, t, a.Watch, resource, head)
		folded := listed(ctx, t, folding, resource, head)
		if len(took) == 0 || len(took) != len(folded) {
			t.Fatalf("%s: the adopting hub lists %d, the folding hub %d", resource, len(took), len(folded))
		}
		for i, o := range took {
			f := folded[i]
			if o.Stream != f.Stream || o.ResourceVersion != f.ResourceVersion {
				t.Fatalf("%s: %s@%d against %s@%d", resource, o.Stream, o.ResourceVersion, f.Stream, f.ResourceVersion)
			}
			mine, err := o.JSON()
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := f.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mine, theirs) {
				t.Errorf("%s: the adopted object shows\n%s\nthe folded one\n%s", o.Stream, mine, theirs)
			}
			if !reflect.DeepEqual(o.State(), f.State()) {
				t.Errorf("%s: the adopted state\n%#v\nthe folded one\n%#v", o.Stream, o.State(), f.State())
			}
		}
	}
	// Every write above was this herd's: the hub took the state of each
	// one, none folded (not even one its read found in the log before
	// the writer had offered it), and the other hub, offered nothing,
	// took none.
	if want, took := writesOf(ctx, t, log, "node/", "lease/"), a.Watch.Adopted(); took != want {
		t.Errorf("the hub adopted the states of %d writes of nodes and Leases, of %d", took, want)
	}
	if folding.Adopted() != 0 {
		t.Errorf("the folding hub adopted %d states", folding.Adopted())
	}
}

// writesOf counts the writes in log to streams with any of prefixes: the
// events that no event of the same write follows.
func writesOf(ctx context.Context, t *testing.T, log events.Log, prefixes ...string) int64 {
	t.Helper()
	recs, err := log.ReadAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for i, rec := range recs {
		if i+1 < len(recs) && recs[i+1].Continues && recs[i+1].Stream == rec.Stream {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(rec.Stream, p) {
				n++
			}
		}
	}
	return n
}

// listed is every object of resource h lists at pos, deleted ones aside.
func listed(ctx context.Context, t *testing.T, h *watch.Hub, resource string, pos int64) []*watch.Object {
	t.Helper()
	res, err := h.List(ctx, watch.ListRequest{Resource: resource, At: pos})
	if err != nil {
		t.Fatal(err)
	}
	return res.Items
}

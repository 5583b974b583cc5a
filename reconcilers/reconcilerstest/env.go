// Package reconcilerstest gives the tests of herd's reconcilers a real
// SQLite log in a temporary directory, the views and the unit of work over
// it, and a fake clock, with short ways to put nodes and pods in the state
// a test needs. Tests call Reconcile directly: reconcilers are level-based,
// so what a key's reconcile does depends only on the views and the clock.
package reconcilerstest

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// T0 is where every test's fake clock starts.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// At is T0 plus s seconds.
func At(s int) time.Time { return T0.Add(time.Duration(s) * time.Second) }

// Env is one test's log, views, unit of work and clock.
type Env struct {
	t testing.TB
	// Log is the log through the storage port, as the reconcilers'
	// dispatcher follows it.
	Log events.Log
	// Store is the same log as the SQLite store, for the views.
	Store  *events.Store
	Clock  *clocktesting.FakeClock
	Writer *projections.Writer
	Nodes  *projections.NodeView
	Pods   *projections.PodView
}

// New opens a fresh log in t's temporary directory, closed when t ends.
func New(t testing.TB) *Env {
	t.Helper()
	ctx := t.Context()
	store, err := events.Open(ctx, events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(T0)
	return &Env{
		t: t, Log: store.Log(), Store: store, Clock: clk,
		Writer: projections.NewWriter(store.Log(), clk, nil),
		Nodes:  projections.NewNodeView(store.Log()),
		Pods:   projections.NewPodView(store.Log()),
	}
}

// SetTime moves the clock to At(s).
func (e *Env) SetTime(s int) { e.Clock.SetTime(At(s)) }

// Node applies cmds to the named node, now, failing the test on an error.
func (e *Env) Node(name string, cmds ...domain.NodeCommand) domain.Node {
	e.t.Helper()
	n, err := e.Writer.NodeCommands().Execute(e.t.Context(), domain.Key{Name: name}, domain.NodeSequence(cmds))
	if err != nil {
		e.t.Fatalf("node %s: %v", name, err)
	}
	return n
}

// ReadyNode registers a node of kind linux with the given labels and
// reports it Ready.
func (e *Env) ReadyNode(name string, labels map[string]string) domain.Node {
	e.t.Helper()
	return e.KindNode(name, domain.KindLinux, labels)
}

// KindNode registers a Ready node of the given kind.
func (e *Env) KindNode(name string, kind domain.NodeKind, labels map[string]string) domain.Node {
	e.t.Helper()
	return e.Node(name,
		domain.RegisterNode{Registration: domain.Registration{Name: name, Kind: kind, Labels: labels}},
		Report(domain.ConditionTrue))
}

// Report is a heartbeat that reports Ready with the given status.
func Report(status domain.ConditionStatus) domain.RecordHeartbeat {
	return domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: status}}}
}

// MarkSilent is the health rules' mark of a node that fell silent after
// its last report, judged by that report, followed by then in the same
// unit of work.
func MarkSilent(then ...domain.NodeCommand) domain.NodeCommand {
	return domain.NodeFrom(func(n domain.Node) (domain.NodeCommand, error) {
		return append(domain.NodeSequence{domain.MarkNodeUnreachableSince(n.LastHeartbeat)}, then...), nil
	})
}

// Pod applies cmds to default/name, now, as one unit of work, failing the
// test on an error.
func (e *Env) Pod(name string, cmds ...domain.PodCommand) domain.Pod {
	e.t.Helper()
	p, err := e.Writer.PodCommands().Execute(e.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.PodSequence(cmds))
	if err != nil {
		e.t.Fatalf("pod %s: %v", name, err)
	}
	return p
}

// DeletedByOperator deletes default/name as an operator
// (kubernetes-admin) does, then stops and finalizes it as herd's
// termination does for a pod on a node, each step naming the deletion,
// and returns the deletion request.
func (e *Env) DeletedByOperator(name string) events.Record {
	e.t.Helper()
	ctx, key := e.t.Context(), domain.Key{Namespace: "default", Name: name}
	pods := e.Writer.PodCommands()
	if _, err := pods.Execute(events.WithMetadata(ctx, events.Metadata{Actor: "kubernetes-admin"}), key, domain.DeletePod{}); err != nil {
		e.t.Fatalf("delete pod %s: %v", name, err)
	}
	deletion := e.Last(domain.PodStream("default", name), domain.PodDeletionRequested{}.EventType())
	termination := events.WithMetadata(ctx, events.CausedBy(deletion, "system:herd:termination", ""))
	if _, err := pods.Execute(termination, key, domain.PodSequence{domain.RecordTermination{Step: domain.StepStopped}, domain.FinalizePod{Reason: "Terminated"}}); err != nil {
		e.t.Fatalf("terminate pod %s: %v", name, err)
	}
	return deletion
}

// CreatePod is a CreatePod of default/name with one container and the
// given grace period, bound to node unless it is empty.
func CreatePod(name, node string, grace int64) domain.CreatePod {
	return domain.CreatePod{
		Namespace: "default", Name: name, UID: "uid-" + name,
		Spec: domain.PodSpec{
			NodeName:   node,
			Containers: []domain.Container{{Name: "app", Image: "busybox"}},
		},
		TerminationGracePeriodSeconds: &grace,
	}
}

// GetPod returns default/name as the view has it, including a finalized
// pod's tombstone; ok is false when herd never saw it.
func (e *Env) GetPod(name string) (domain.Pod, bool) {
	e.t.Helper()
	p, err := e.Pods.GetIncludingFinalized(e.t.Context(), "default", name)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Pod{}, false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return p, true
}

// GetNode returns the named node, failing the test when it does not exist.
func (e *Env) GetNode(name string) domain.Node {
	e.t.Helper()
	n, err := e.Nodes.Get(e.t.Context(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// PodTypes lists the types of the events in default/name's stream, oldest
// first.
func (e *Env) PodTypes(name string) []string {
	e.t.Helper()
	return e.StreamTypes(domain.PodStream("default", name))
}

// NodeTypes lists the types of the events in the node's stream.
func (e *Env) NodeTypes(name string) []string {
	e.t.Helper()
	return e.StreamTypes(domain.NodeStream(name))
}

// StreamTypes lists the types of the events in a stream, oldest first.
func (e *Env) StreamTypes(stream string) []string {
	e.t.Helper()
	recs, err := e.Log.ReadStream(e.t.Context(), stream, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Type)
	}
	return out
}

// Newest is the newest record of stream of type typ, or of a composite
// that may hold one (domain.TypesHolding: a NodeStatusChanged for a
// NodeConditionChanged); false when there is none.
func (e *Env) Newest(stream, typ string) (events.Record, bool) {
	e.t.Helper()
	recs, err := e.Log.Query(e.t.Context(), events.Filter{Stream: stream, Types: domain.TypesHolding(typ), Newest: true, Limit: 1})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(recs) == 0 {
		return events.Record{}, false
	}
	return recs[0], true
}

// Last is Newest for a record the test needs: it fails when there is
// none.
func (e *Env) Last(stream, typ string) events.Record {
	e.t.Helper()
	rec, ok := e.Newest(stream, typ)
	if !ok {
		e.t.Fatalf("%s has no %s", stream, typ)
	}
	return rec
}

// Records returns the log's records after position, for tests of KeysFor.
func (e *Env) Records(after int64) []events.Record {
	e.t.Helper()
	recs, err := e.Log.ReadAfter(e.t.Context(), after, 10000)
	if err != nil {
		e.t.Fatal(err)
	}
	return recs
}

// Head is the log's last position.
func (e *Env) Head() int64 {
	e.t.Helper()
	h, err := e.Log.Head(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

package viewstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/projections/viewstore"
)

// TestPodsContract: the pod view's table behaves the same on a real
// SQLite file and a real PostgreSQL, through each engine's own
// implementation and through NewPods: an upsert replaces a row; a list
// leaves finalized pods out and keeps those its filter names — a
// namespace, a node or none, a phase, a source (herd's own, "", among
// them), the terminating, some controllers or none at all — in key
// order at the log's head; pages keep finalized pods, in bytewise key
// order; the nodes live pods are bound to are named once each, and
// those of them the node view does not hold or holds deleted apart.
func TestPodsContract(t *testing.T) {
	onEachEngineApart(t, viewstore.NewSQLitePods, viewstore.NewPostgresPods, viewstore.NewPods, podContract)
}

// pod is a pod's row whose data obj would write, bound to node, in
// phase, of source and controller.
func pod(ns, name string, v int64, node, phase, source, controller string) viewstore.PodRow {
	o := obj(ns, name, false, v)
	return viewstore.PodRow{
		Key: o.Key, UID: "uid-" + name, NodeName: node, Phase: phase, Source: source, Controller: controller,
		Version: v, ResourceVersion: o.ResourceVersion, Data: o.Data,
	}
}

// oursOf are the names among names that begin with prefix, never nil.
func oursOf(prefix string, names []string) []string {
	out := []string{}
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// podContract runs the pod table's contract in namespaces and on nodes
// that begin with prefix, so that runs on one database stay apart.
func podContract(t *testing.T, e engine, prefix string, pods viewstore.Pods) {
	ctx := t.Context()
	db, eng := events.SQLDB(e.log)
	views := pool{db: db, d: eng.Dialect()}
	a, b := prefix+"a", prefix+"b"
	n1, n2, gone, never := prefix+"n1", prefix+"n2", prefix+"gone", prefix+"never"

	if _, err := pods.Get(ctx, views, viewstore.Key{Namespace: a, Name: "x"}); !errors.Is(err, viewstore.ErrNoRow) {
		t.Fatalf("Get of a row never written: %v, want ErrNoRow", err)
	}

	terminating := pod(a, "term", 1, n2, "Running", "", "")
	terminating.Terminating = true
	write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.PodRow{
			pod(a, "a.b", 1, n1, "Running", "", "ReplicaSet/web"),
			pod(a, "a-z", 1, "", "Pending", "", "ReplicaSet/web"),
			pod(a, "lone", 1, n1, "Pending", "", ""),
			pod(a, "seen", 1, gone, "Running", "kubelet", ""),
			pod(a, "stray", 1, never, "Running", "kubelet", ""),
			pod(b, "n1", 1, n2, "Succeeded", "kubelet", "Job/j"),
			pod(a, "fin", 1, n1, "Running", "kubelet", ""),
			terminating,
		} {
			if err := pods.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %v: %v", r.Key, err)
			}
		}
		got, err := pods.Get(ctx, x, viewstore.Key{Namespace: a, Name: "a.b"})
		if err != nil || string(got) != string(obj(a, "a.b", false, 1).Data) {
			t.Errorf("Get inside the writing transaction: %s, %v", got, err)
		}
		// The node view's rows the pods are bound to: n1 and n2 live,
		// gone deleted, never none.
		for _, n := range []struct {
			name    string
			deleted bool
		}{{n1, false}, {n2, false}, {gone, true}} {
			if _, err := x.ExecContext(ctx, `INSERT INTO nodes (name, kind, deleted, agent_state, ready, registered_at, data) VALUES (?, 'Linux', ?, 'Running', 'True', 1, ?)`,
				n.name, n.deleted, []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
		}
	})
	finalized := pod(a, "fin", 2, n1, "Succeeded", "kubelet", "")
	finalized.Finalized = true
	head := write(t, e.log, func(x *events.ViewTx) {
		for _, r := range []viewstore.PodRow{pod(a, "a-z", 2, n2, "Running", "", "ReplicaSet/web"), finalized} {
			if err := pods.Upsert(ctx, x, r); err != nil {
				t.Fatalf("Upsert %v: %v", r.Key, err)
			}
		}
	})
	if got, err := pods.Get(ctx, views, viewstore.Key{Namespace: a, Name: "a-z"}); err != nil || string(got) != string(obj(a, "a-z", false, 2).Data) {
		t.Errorf("Get after a second Upsert: %s, %v; want the second row", got, err)
	}
	if got, err := pods.Get(ctx, views, viewstore.Key{Namespace: a, Name: "fin"}); err != nil || string(got) != string(obj(a, "fin", false, 2).Data) {
		t.Errorf("Get of a finalized pod: %s, %v; want its row", got, err)
	}

	// List: the pods not finalized that a filter keeps, at the head.
	lists := []struct {
		name string
		f    viewstore.PodFilter
		want []string
	}{
		{"every namespace", viewstore.PodFilter{}, []string{a + "/a-z", a + "/a.b", a + "/lone", a + "/seen", a + "/stray", a + "/term", b + "/n1"}},
		{"namespace", viewstore.PodFilter{Namespace: b}, []string{b + "/n1"}},
		{"node", viewstore.PodFilter{NodeName: n2}, []string{a + "/a-z", a + "/term", b + "/n1"}},
		{"node in a namespace", viewstore.PodFilter{Namespace: a, NodeName: n2}, []string{a + "/a-z", a + "/term"}},
		{"unbound wins over a node", viewstore.PodFilter{Namespace: a, NodeName: n1, Unbound: true}, []string{}},
		{"phase", viewstore.PodFilter{Namespace: a, Phase: "Pending"}, []string{a + "/lone"}},
		{"herd's own", viewstore.PodFilter{Namespace: a, BySource: true}, []string{a + "/a-z", a + "/a.b", a + "/lone", a + "/term"}},
		{"a kubelet's", viewstore.PodFilter{BySource: true, Source: "kubelet"}, []string{a + "/seen", a + "/stray", b + "/n1"}},
		{"a source unset does not filter", viewstore.PodFilter{Namespace: b, Source: "nobody's"}, []string{b + "/n1"}},
		{"terminating", viewstore.PodFilter{Terminating: true}, []string{a + "/term"}},
		{"controllers", viewstore.PodFilter{Namespace: a, Controllers: []string{"ReplicaSet/web"}}, []string{a + "/a-z", a + "/a.b"}},
		{"controllers and none", viewstore.PodFilter{Namespace: a, Controllers: []string{"", "Job/j"}}, []string{a + "/lone", a + "/seen", a + "/stray", a + "/term"}},
		{"no controllers at all", viewstore.PodFilter{Namespace: a, Controllers: []string{}}, []string{}},
		{"every filter", viewstore.PodFilter{Namespace: b, NodeName: n2, Phase: "Succeeded", BySource: true, Source: "kubelet", Controllers: []string{"Job/j"}}, []string{b + "/n1"}},
	}
	for _, c := range lists {
		// Twice: the second list's statement is the one the first made.
		for range 2 {
			got, h, err := pods.List(ctx, views, c.f)
			if err != nil {
				t.Fatalf("List %s: %v", c.name, err)
			}
			if diff := cmp.Diff(c.want, ours(t, prefix, got)); diff != "" || h != head {
				t.Errorf("List %s at %d, head %d (-want +got):\n%s", c.name, h, head, diff)
			}
		}
	}

	// After: pages in bytewise key order, finalized pods included.
	pages := []struct {
		after viewstore.Key
		limit int
		want  []string
	}{
		{viewstore.Key{Namespace: a}, 0, []string{a + "/a-z", a + "/a.b", a + "/fin", a + "/lone", a + "/seen", a + "/stray", a + "/term", b + "/n1"}},
		{viewstore.Key{Namespace: a}, 3, []string{a + "/a-z", a + "/a.b", a + "/fin"}},
		{viewstore.Key{Namespace: a, Name: "stray"}, 0, []string{a + "/term", b + "/n1"}},
		{viewstore.Key{Namespace: b, Name: "n1"}, 1, []string{}},
	}
	for _, p := range pages {
		got, h, err := pods.After(ctx, views, p.after, p.limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(p.want, ours(t, prefix, got)); diff != "" || h != head {
			t.Errorf("After(%v, %d) at %d, head %d (-want +got):\n%s", p.after, p.limit, h, head, diff)
		}
	}

	// The nodes pods are bound to, and those of them gone.
	bound := []struct {
		source      string
		bound, gone []string
	}{
		{"", []string{n1, n2}, []string{}},
		{"kubelet", []string{gone, n2, never}, []string{gone, never}},
	}
	for _, c := range bound {
		got, err := pods.BoundNodes(ctx, views, c.source)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.bound, oursOf(prefix, got)); diff != "" {
			t.Errorf("BoundNodes(%q) (-want +got):\n%s", c.source, diff)
		}
		got, err = pods.BoundNodesGone(ctx, views, c.source)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.gone, oursOf(prefix, got)); diff != "" {
			t.Errorf("BoundNodesGone(%q) (-want +got):\n%s", c.source, diff)
		}
	}
}

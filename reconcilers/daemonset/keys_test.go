package daemonset

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// TestKeysFor: a DaemonSet's changes reach it; its pods' events reach it
// through the index of their controllers; a node's arrival, departure,
// labels, taints and readiness reach every DaemonSet known, from memory,
// and its heartbeats and cordon none.
func TestKeysFor(t *testing.T) {
	g := newRig(t, []domain.DaemonSet{logsDS()}, nil)
	logsOwner := logsDS().OwnerReference()
	const pod = "pod/default/logs-abcde"
	steps := []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"a node before any DaemonSet is known", reconcilerstest.Record(t, "node/n1", domain.NodeRegistered{}), nil},
		{"a DaemonSet created", reconcilerstest.Record(t, "daemonset/default/logs", domain.DaemonSetCreated{Namespace: "default", Name: "logs"}), []string{"daemonset/default/logs"}},
		{"another", reconcilerstest.Record(t, "daemonset/kube-system/dns", domain.DaemonSetCreated{Namespace: "kube-system", Name: "dns"}), []string{"daemonset/kube-system/dns"}},
		{"a new template", reconcilerstest.Record(t, "daemonset/default/logs", domain.DaemonSetChanged{}), []string{"daemonset/default/logs"}},
		{"its own status", reconcilerstest.Record(t, "daemonset/default/logs", domain.DaemonSetStatusRecorded{}), nil},
		{"a node registered", reconcilerstest.Record(t, "node/n1", domain.NodeRegistered{}), []string{"daemonset/default/logs", "daemonset/kube-system/dns"}},
		{"a node's labels", reconcilerstest.Record(t, "node/n1", domain.NodeLabelsChanged{}), []string{"daemonset/default/logs", "daemonset/kube-system/dns"}},
		{"a node tainted", reconcilerstest.Record(t, "node/n1", domain.NodeTainted{}), []string{"daemonset/default/logs", "daemonset/kube-system/dns"}},
		{"a node Ready", reconcilerstest.Record(t, "node/n1", domain.NodeBecameReady{}), []string{"daemonset/default/logs", "daemonset/kube-system/dns"}},
		{"a node's heartbeat", reconcilerstest.Record(t, "node/n1", domain.HeartbeatRecorded{}), nil},
		{"a node cordoned", reconcilerstest.Record(t, "node/n1", domain.NodeCordoned{}), nil},
		{"a DaemonSet deleted", reconcilerstest.Record(t, "daemonset/kube-system/dns", domain.DaemonSetDeleted{}), []string{"daemonset/kube-system/dns"}},
		{"a node gone", reconcilerstest.Record(t, "node/n1", domain.NodeDeleted{}), []string{"daemonset/default/logs"}},
		{"its pod created", reconcilerstest.Record(t, pod, domain.PodCreated{Namespace: "default", Name: "logs-abcde", Owners: []domain.OwnerReference{logsOwner}}), []string{"daemonset/default/logs"}},
		{"its pod ready", reconcilerstest.Record(t, pod, domain.PodStatusUpdated{}), []string{"daemonset/default/logs"}},
		{"its pod being deleted", reconcilerstest.Record(t, pod, domain.PodDeletionRequested{}), []string{"daemonset/default/logs"}},
		{"its pod gone", reconcilerstest.Record(t, pod, domain.PodFinalized{}), []string{"daemonset/default/logs"}},
		{"a gone pod's stray event", reconcilerstest.Record(t, pod, domain.PodStatusUpdated{}), nil},
		{"a ReplicaSet's pod", reconcilerstest.Record(t, "pod/default/web-1", domain.PodCreated{Namespace: "default", Name: "web-1",
			Owners: []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "logs", UID: "rs", Controller: true}}}), nil},
		{"an unreadable creation", events.Record{Stream: pod, Type: domain.PodCreated{}.EventType(), Payload: []byte("[")}, nil},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, reconcilerstest.Strings(g.r.Watches().KeysFor(s.rec))); diff != "" {
			t.Errorf("%s: keys (-want +got):\n%s", s.name, diff)
		}
	}
}

// TestResyncKnowsEveryDaemonSet: the resync returns every DaemonSet and
// makes node events reach them, as after herd starts.
func TestResyncKnowsEveryDaemonSet(t *testing.T) {
	dns := logsDS()
	dns.Namespace, dns.Name = "kube-system", "dns"
	g := newRig(t, []domain.DaemonSet{logsDS(), dns}, nil)
	keys, err := g.r.Resync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"daemonset/default/logs", "daemonset/kube-system/dns"}
	if diff := cmp.Diff(want, reconcilerstest.Strings(keys)); diff != "" {
		t.Errorf("resync (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, reconcilerstest.Strings(g.r.Watches().KeysFor(reconcilerstest.Record(t, "node/n9", domain.NodeRegistered{})))); diff != "" {
		t.Errorf("a node's registration after the resync (-want +got):\n%s", diff)
	}
}

// TestANodeJoiningReadsLittle: the reconcile a joining node brings reads
// the DaemonSet's namespace's pods once, the nodes once, and the pods of
// the one node it gives a pod for the room they take: never the pods of
// every node one by one, nor the fleet's pods.
func TestANodeJoiningReadsLittle(t *testing.T) {
	ds := logsDS()
	nodes := []domain.Node{}
	var pods []domain.Pod
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		nodes = append(nodes, node(name))
		pods = append(pods, daemonPod(ds, "logs-"+name, name))
	}
	g := newRig(t, []domain.DaemonSet{ds}, nodes, pods...)
	g.reconcile(t, logsKey)
	g.settled(t, logsKey)
	g.pods.Asked, g.nodes.lists = nil, 0
	g.nodes.nodes["g"] = node("g")
	g.reconcile(t, logsKey)
	herd := domain.SourceHerd
	want := []projections.PodFilter{{Namespace: "default", Source: &herd, Controllers: []string{"DaemonSet/logs", ""}}, {NodeName: "g", Source: &herd}}
	if diff := cmp.Diff(want, g.pods.Asked); diff != "" || g.nodes.lists != 1 {
		t.Errorf("reads: pods (-want +got):\n%s, node lists %d", diff, g.nodes.lists)
	}
	if on := g.onNodes(ds)["g"]; len(on) != 1 {
		t.Errorf("g got %v", on)
	}
}

// TestABurstReadsTheRoomOfItsOwnNodes: a DaemonSet over more nodes than
// one reconcile creates pods for reads the room of the nodes it gives a
// pod, one node at a time, past those without room, and no more; the
// next reconcile goes on.
func TestABurstReadsTheRoomOfItsOwnNodes(t *testing.T) {
	ds := logsDS()
	full := domain.Pod{Namespace: "shop", Name: "cart", UID: "uid-cart", Version: 2, Source: domain.SourceHerd,
		Spec: domain.PodSpec{NodeName: "a", Containers: []domain.Container{{Name: "c"}}}}
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{
		node("a", allocatable(domain.ResourceList{"pods": 1})), node("b"), node("c"), node("d"), node("e"),
	}, full)
	g.r.cfg.BurstReplicas = 2
	g.reconcile(t, logsKey)
	herd := domain.SourceHerd
	var nodes []string
	for _, f := range g.pods.Asked {
		if f.NodeName != "" && *f.Source == herd {
			nodes = append(nodes, f.NodeName)
		}
	}
	if got := nodesOf(g.onNodes(ds)); !slices.Equal(got, []string{"b", "c"}) || !slices.Equal(nodes, []string{"a", "b", "c"}) {
		t.Errorf("first burst: pods on %v, room read of %v", got, nodes)
	}
	g.reconcile(t, logsKey)
	if got := nodesOf(g.onNodes(ds)); !slices.Equal(got, []string{"b", "c", "d", "e"}) {
		t.Errorf("second burst: pods on %v", got)
	}
}

// TestAnOrphanReachesTheDaemonSetThatAdoptsIt: once a reconcile has read
// a DaemonSet, a pod made without a controller with labels its selector
// matches reaches it as it comes (Watches.Adopts), and so does an
// orphaned revision; once the DaemonSet is being deleted, none does.
func TestAnOrphanReachesTheDaemonSetThatAdoptsIt(t *testing.T) {
	g := newRig(t, []domain.DaemonSet{logsDS()}, nil)
	orphan := reconcilerstest.Record(t, "pod/default/by-hand", domain.PodCreated{Namespace: "default", Name: "by-hand", Labels: map[string]string{"app": "logs"}})
	if got := g.r.Watches().KeysFor(orphan); len(got) != 0 {
		t.Errorf("before any reconcile the orphan reaches %v, want none (the resync finds it)", got)
	}
	if _, err := g.r.Reconcile(t.Context(), logsKey); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"daemonset/default/logs"}, reconcilerstest.Strings(g.r.Watches().KeysFor(orphan))); diff != "" {
		t.Errorf("the orphan's keys (-want +got):\n%s", diff)
	}
	rev := reconcilerstest.Record(t, "controllerrevision/default/logs-abc", domain.ControllerRevisionCreated{Namespace: "default", Name: "logs-abc", Labels: map[string]string{"app": "logs"}})
	if diff := cmp.Diff([]string{"daemonset/default/logs"}, reconcilerstest.Strings(g.r.Watches().KeysFor(rev))); diff != "" {
		t.Errorf("an orphaned revision's keys (-want +got):\n%s", diff)
	}
	deleting := logsDS()
	asked := at(20)
	deleting.DeletionRequestedAt = &asked
	g.sets.Objects[deleting.Key()] = deleting
	if _, err := g.r.Reconcile(t.Context(), logsKey); err != nil {
		t.Fatal(err)
	}
	if got := g.r.Watches().KeysFor(orphan); len(got) != 0 {
		t.Errorf("while the DaemonSet is being deleted the orphan reaches %v, want none", got)
	}
}

package daemonset

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// at is the tests' T0 plus s seconds.
func at(s int) time.Time { return reconcilerstest.At(s) }

// logsDS is the DaemonSet default/logs: log collectors on every node,
// rolled out one node at a time, at generation 2.
func logsDS() domain.DaemonSet {
	labels := map[string]string{"app": "logs"}
	return domain.DaemonSet{TemplateGeneration: 1, Object: domain.Object[domain.DaemonSetSpec, domain.DaemonSetStatus]{
		ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "logs", UID: "ds-logs", Generation: 2}, Version: 3,
		Spec: domain.DaemonSetSpec{
			Selector: domain.LabelSelector{MatchLabels: labels},
			Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "fluent", Image: "fluent-bit:3"}}}},
			UpdateStrategy: domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetRollingUpdate,
				RollingUpdate: &domain.RollingUpdateDaemonSet{MaxUnavailable: domain.IntOrPercent{Value: 1}}},
		},
	}}
}

// logsKey is the key of default/logs.
var logsKey = dsKey("default", "logs")

// nodeOpt changes a test node.
type nodeOpt func(*domain.Node)

// node is a Ready linux node with room for 10 pods, unless opts say
// otherwise.
func node(name string, opts ...nodeOpt) domain.Node {
	n := domain.Node{
		Name: name, Kind: domain.KindLinux, Version: 2,
		Labels:      map[string]string{domain.LabelKind: string(domain.KindLinux)},
		Allocatable: domain.ResourceList{"pods": 10, "cpu": 4000, "memory": 8 << 30},
		Conditions:  []domain.Condition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}},
	}
	for _, o := range opts {
		o(&n)
	}
	return n
}

func kind(k domain.NodeKind) nodeOpt {
	return func(n *domain.Node) { n.Kind, n.Labels[domain.LabelKind] = k, string(k) }
}

func tainted(key string, effect domain.TaintEffect) nodeOpt {
	return func(n *domain.Node) { n.Taints = append(n.Taints, domain.Taint{Key: key, Effect: effect}) }
}

func allocatable(l domain.ResourceList) nodeOpt { return func(n *domain.Node) { n.Allocatable = l } }

// daemonPod is the pod the DaemonSet ds made on node, named name,
// created at 0 from its current template, running and ready since 0.
func daemonPod(ds domain.DaemonSet, name, node string, opts ...podOpt) domain.Pod {
	c := podFor(ds, node, name, "uid-"+name)
	p := domain.Pod{
		Namespace: c.Namespace, Name: c.Name, UID: c.UID, Version: 3, CreatedAt: at(0), Source: domain.SourceHerd,
		Labels: c.Labels, Owners: c.Owners, Spec: c.Spec,
		Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue, LastTransitionTime: at(0)},
		}},
	}
	for _, o := range opts {
		o(&p)
	}
	return p
}

// podOpt changes a test pod.
type podOpt func(*domain.Pod)

func createdAt(s int) podOpt { return func(p *domain.Pod) { p.CreatedAt = at(s) } }

func phase(ph domain.PodPhase) podOpt { return func(p *domain.Pod) { p.Status.Phase = ph } }

func notReady(p *domain.Pod) {
	p.Status.Conditions = []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionFalse, LastTransitionTime: at(0)}}
}

func readyAt(s int) podOpt {
	return func(p *domain.Pod) { p.Status.Conditions[0].LastTransitionTime = at(s) }
}

func owners(o ...domain.OwnerReference) podOpt { return func(p *domain.Pod) { p.Owners = o } }

func requests(cpu int64) podOpt {
	return func(p *domain.Pod) { p.Spec.Containers[0].Requests = domain.ResourceList{"cpu": cpu} }
}

// counting are identities that count: suffixes p0000, p0001, ... and
// UIDs uid-0, uid-1, ...
func counting() Identities {
	var names, uids int
	return Identities{
		Suffix: func() string { names++; return fmt.Sprintf("p%04d", names-1) },
		UID:    func() string { uids++; return fmt.Sprintf("uid-%d", uids-1) },
	}
}

// rig is a reconciler on fakes, with its clock.
type rig struct {
	r     *Reconciler
	sets  *fakeDaemonSets
	nodes *fakeNodes
	pods  *fakePods
	clock *clocktesting.FakePassiveClock
}

// newRig is a reconciler over sets, nodes and pods at now.
func newRig(t *testing.T, sets []domain.DaemonSet, nodes []domain.Node, pods ...domain.Pod) *rig {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(at(10))
	g := &rig{sets: newFakeDaemonSets(clk.Now, sets...), nodes: &fakeNodes{nodes: map[string]domain.Node{}}, pods: newFakePods(clk.Now, pods...), clock: clk}
	for _, n := range nodes {
		g.nodes.nodes[n.Name] = n
	}
	r, err := New(DefaultConfig(), g.sets, g.nodes, g.pods, g.pods, g.sets, clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.ids = counting()
	g.r = r
	return g
}

// reconcile reconciles key, failing the test on an error, and returns
// its result.
func (g *rig) reconcile(t *testing.T, key reconcilers.Key) reconcilers.Result {
	t.Helper()
	g.pods.Written, g.sets.Written = map[string][]string{}, map[string][]string{}
	res, err := g.r.Reconcile(t.Context(), key)
	if err != nil {
		t.Fatalf("reconcile %s: %v", key, err)
	}
	return res
}

// settled reconciles key once more and fails the test if that wrote
// anything: a level-based reconcile that has done its work finds
// nothing left to do.
func (g *rig) settled(t *testing.T, key reconcilers.Key) {
	t.Helper()
	g.reconcile(t, key)
	if len(g.pods.Written)+len(g.sets.Written) > 0 {
		t.Errorf("a second reconcile wrote pods %v, daemonsets %v", g.pods.Written, g.sets.Written)
	}
}

// onNodes are the nodes of the DaemonSet's pods that are not being
// deleted, by node, pod names sorted.
func (g *rig) onNodes(ds domain.DaemonSet) map[string][]string {
	out := map[string][]string{}
	for _, p := range g.pods.Pods {
		if p.Exists() && !p.Terminating() && ds.Owns(p) {
			out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p.Name)
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// nodesOf are the sorted names of the nodes in m.
func nodesOf(m map[string][]string) []string { return slices.Sorted(maps.Keys(m)) }

// status is the DaemonSet's status as last recorded.
func (g *rig) status(k domain.Key) domain.DaemonSetStatus { return g.sets.Objects[k].Status }

// pod returns default/name.
func (g *rig) pod(name string) domain.Pod {
	return g.pods.Pods[domain.Key{Namespace: "default", Name: name}]
}

// setPod changes default/name in place.
func (g *rig) setPod(name string, change func(*domain.Pod)) {
	k := domain.Key{Namespace: "default", Name: name}
	p := g.pods.Pods[k]
	change(&p)
	g.pods.Pods[k] = p
}

// dsKey is the key of the DaemonSet namespace/name.
func dsKey(namespace, name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.DaemonSetAggregate, Namespace: namespace, Name: name}
}

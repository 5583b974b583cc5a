package daemonset

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// linuxLogsDS is logsDS on linux nodes only, as its tests of placement
// and pods need a node selector.
func linuxLogsDS() domain.DaemonSet {
	ds := logsDS()
	ds.Spec.Template.Spec.NodeSelector = map[string]string{domain.LabelKind: "linux"}
	return ds
}

// TestADaemonSetsPodToleratesWhatDaemonsDo: a DaemonSet's pod is its
// template bound to the node, with the tolerations Kubernetes gives daemon pods, and labelled with
// the template's hash and generation; the DaemonSet owns it and finds it
// up to date until the template changes.
func TestADaemonSetsPodToleratesWhatDaemonsDo(t *testing.T) {
	ds := linuxLogsDS()
	secs := int64(60)
	ds.Spec.Template.Spec.Tolerations = []domain.Toleration{
		{Key: domain.TaintUnreachable, Operator: domain.TolerationOpExists, Effect: domain.EffectNoExecute, TolerationSeconds: &secs},
		{Key: "dedicated", Operator: domain.TolerationOpEqual, Value: "logs", Effect: domain.EffectNoSchedule},
	}
	create := podFor(ds, "n1", "logs-abcde", "pod-uid")
	if create.Spec.NodeName != "n1" || create.Labels["app"] != "logs" || create.Labels[domain.LabelPodTemplateGeneration] != "1" ||
		create.Labels[domain.LabelControllerRevisionHash] != templateHash(ds) || len(create.Owners) != 1 || create.Owners[0].Kind != "DaemonSet" {
		t.Errorf("a DaemonSet's pod: %+v", create)
	}
	// The template's unreachable toleration is replaced by the unbounded
	// one; the operator's own stays; the rest are added.
	wantTols := []domain.Toleration{
		{Key: domain.TaintUnreachable, Operator: domain.TolerationOpExists, Effect: domain.EffectNoExecute},
		{Key: "dedicated", Operator: domain.TolerationOpEqual, Value: "logs", Effect: domain.EffectNoSchedule},
		{Key: domain.TaintNotReady, Operator: domain.TolerationOpExists, Effect: domain.EffectNoExecute},
		{Key: domain.TaintDiskPressure, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
		{Key: domain.TaintMemoryPressure, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
		{Key: domain.TaintPIDPressure, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
		{Key: domain.TaintUnschedulable, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
	}
	if diff := cmp.Diff(wantTols, create.Spec.Tolerations); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	if len(ds.Spec.Template.Spec.Tolerations) != 2 {
		t.Errorf("making a pod changed the template: %+v", ds.Spec.Template.Spec.Tolerations)
	}
	evs, err := domain.DecidePod(domain.Pod{}, create, at(3))
	if err != nil {
		t.Fatal(err)
	}
	var p domain.Pod
	for _, e := range evs {
		p = domain.EvolvePod(p, e)
	}
	if p.Spec.NodeName != "n1" || !ds.Owns(p) || !isUpdated(ds, p) || !ds.Spec.Selector.Matches(p.Labels) {
		t.Errorf("the DaemonSet's own pod: bound to %q, owned %v, updated %v", p.Spec.NodeName, ds.Owns(p), isUpdated(ds, p))
	}
	// Herd's default 300 s tolerations are not added: the daemon's
	// unbounded ones cover those taints.
	if slices.ContainsFunc(p.Spec.Tolerations, func(t domain.Toleration) bool { return t.TolerationSeconds != nil }) {
		t.Errorf("a daemon pod with a bounded toleration: %+v", p.Spec.Tolerations)
	}

	hash := templateHash(ds)
	if again := templateHash(ds); again != hash || len(hash) == 0 || hash != podFor(ds, "n2", "x", "y").Labels[domain.LabelControllerRevisionHash] {
		t.Errorf("the hash is not stable: %q, %q", hash, again)
	}
	ds.Spec.Template.Spec.Containers[0].Image = "fluent-bit:4"
	ds.TemplateGeneration = 2
	if templateHash(ds) == hash || isUpdated(ds, p) {
		t.Errorf("a new template leaves the old pod up to date (hash %q)", templateHash(ds))
	}
	// A pod of another hash but the current generation is up to date,
	// as Kubernetes' IsPodUpdated takes either.
	p.Labels[domain.LabelPodTemplateGeneration] = "2"
	if !isUpdated(ds, p) {
		t.Error("a pod of the current template generation is not up to date")
	}
}

// TestADaemonSetRunsWhereKubernetesWould: a pod goes where Kubernetes'
// NodeShouldRunDaemonPod would put it, and one there stays where it
// would keep it.
func TestADaemonSetRunsWhereKubernetesWould(t *testing.T) {
	ds := linuxLogsDS()
	ready := []domain.Condition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}
	node := func(change func(*domain.Node)) domain.Node {
		n := domain.Node{Name: "n1", Kind: domain.KindLinux, Labels: map[string]string{domain.LabelKind: "linux"}, Conditions: ready, Version: 3,
			Allocatable: domain.ResourceList{"pods": 10}}
		if change != nil {
			change(&n)
		}
		return n
	}
	taint := func(key string, effect domain.TaintEffect) func(*domain.Node) {
		return func(n *domain.Node) { n.Taints = append(n.Taints, domain.Taint{Key: key, Value: "x", Effect: effect}) }
	}
	tests := []struct {
		name                 string
		node                 domain.Node
		run, continueRunning bool
	}{
		{"a ready linux node", node(nil), true, true},
		{"another kind", node(func(n *domain.Node) { n.Kind, n.Labels[domain.LabelKind] = domain.KindIllumos, "illumos" }), false, false},
		{"a kubelet's node", node(func(n *domain.Node) { n.Kind = domain.KindKubelet }), false, false},
		{"a node for no pod, as a Pico", node(func(n *domain.Node) { n.Allocatable["pods"] = 0 }), false, false},
		{"a deleted node", node(func(n *domain.Node) { n.Deleted = true }), false, false},
		{"cordoned", node(func(n *domain.Node) {
			n.Unschedulable = true
			taint(domain.TaintUnschedulable, domain.EffectNoSchedule)(n)
		}), true, true},
		{"under memory pressure", node(taint(domain.TaintMemoryPressure, domain.EffectNoSchedule)), true, true},
		{"an operator's NoSchedule taint", node(taint("maintenance", domain.EffectNoSchedule)), false, true},
		{"an operator's NoExecute taint", node(taint("maintenance", domain.EffectNoExecute)), false, false},
		{"unreachable", node(func(n *domain.Node) {
			n.Conditions = []domain.Condition{{Type: domain.ConditionReady, Status: domain.ConditionUnknown}}
			taint(domain.TaintUnreachable, domain.EffectNoSchedule)(n)
			taint(domain.TaintUnreachable, domain.EffectNoExecute)(n)
		}), false, true},
		{"not ready yet, without a taint", node(func(n *domain.Node) { n.Conditions = nil }), false, true},
		{"a PreferNoSchedule taint", node(taint("spot", domain.EffectPreferNoSchedule)), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, cont := placement(ds, tt.node)
			if run != tt.run || cont != tt.continueRunning {
				t.Errorf("Placement = %v, %v; want %v, %v", run, cont, tt.run, tt.continueRunning)
			}
		})
	}
	tolerant := ds
	tolerant.Spec.Template.Spec.Tolerations = []domain.Toleration{{Key: "maintenance", Operator: domain.TolerationOpExists}}
	if run, _ := placement(tolerant, node(taint("maintenance", domain.EffectNoExecute))); !run {
		t.Error("a template that tolerates the operator's taint is kept off the node")
	}
	pinned := ds
	pinned.Spec.Template.Spec.NodeName = "n2"
	if run, cont := placement(pinned, node(nil)); run || cont {
		t.Error("a template bound to n2 runs on n1")
	}
}

// isUpdated asks podUpdated of one pod with the DaemonSet's own hash
// and generation.
func isUpdated(ds domain.DaemonSet, p domain.Pod) bool {
	return podUpdated(p, templateHash(ds), ds.TemplateGeneration)
}

package daemonset

import (
	"slices"
	"strconv"

	"herd/domain"
)

// What a DaemonSet's pods and revisions are named and made of, and which
// nodes it runs on: the controller's own reading of the spec, as
// Kubernetes keeps it in pkg/controller/daemon, not in the API's types.

// templateHash names the DaemonSet's current template, as the
// controller-revision-hash label of its pods (domain.PodTemplateHash).
func templateHash(ds domain.DaemonSet) string { return domain.PodTemplateHash(ds.Spec.Template) }

// revisionName names the ControllerRevision of the DaemonSet's current
// template: its name and the template's hash, as Kubernetes names it
// (its pods' controller-revision-hash label is the hash alone).
func revisionName(ds domain.DaemonSet) string { return ds.Name + "-" + templateHash(ds) }

// newRevision is the command that creates the ControllerRevision of the
// DaemonSet's current template, as Kubernetes' DaemonSet controller's
// snapshot does: named revisionName(ds), labelled with the template's
// labels and its hash under controller-revision-hash, annotated as the
// DaemonSet is, owned by it; data is the template as the patch that
// restores it, number the revision's.
func newRevision(ds domain.DaemonSet, data []byte, number int64, uid string) domain.CreateControllerRevision {
	return domain.NewTemplateRevision(ds.ObjectMeta, ds.OwnerReference(), ds.Spec.Template, domain.LabelControllerRevisionHash, data, number, uid)
}

// podUpdated reports whether pod p was made from the DaemonSet's current
// template, given as its hash and generation: its hash label is the
// template's, or its template generation label is the DaemonSet's
// (Kubernetes' IsPodUpdated). The caller computes the hash once for
// the many pods it asks of.
func podUpdated(p domain.Pod, hash string, generation int64) bool {
	if h, ok := p.Labels[domain.LabelControllerRevisionHash]; ok && h == hash {
		return true
	}
	g, ok := p.Labels[domain.LabelPodTemplateGeneration]
	return ok && g == strconv.FormatInt(generation, 10)
}

// daemonTolerations are the tolerations Kubernetes gives every pod of a
// DaemonSet (AddOrUpdateDaemonPodTolerations): it stays on a node that is
// not ready or unreachable, for ever, and goes on a node under memory,
// disk or PID pressure, or cordoned. A DaemonSet's pod does not tolerate
// network-unavailable: herd's pods have no host network.
var daemonTolerations = []domain.Toleration{
	{Key: domain.TaintNotReady, Operator: domain.TolerationOpExists, Effect: domain.EffectNoExecute},
	{Key: domain.TaintUnreachable, Operator: domain.TolerationOpExists, Effect: domain.EffectNoExecute},
	{Key: domain.TaintDiskPressure, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
	{Key: domain.TaintMemoryPressure, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
	{Key: domain.TaintPIDPressure, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
	{Key: domain.TaintUnschedulable, Operator: domain.TolerationOpExists, Effect: domain.EffectNoSchedule},
}

// withDaemonTolerations returns tols with each of daemonTolerations added,
// or put in place of one that says the same but for its seconds, as
// Kubernetes' AddOrUpdateTolerationInPodSpec does.
func withDaemonTolerations(tols []domain.Toleration) []domain.Toleration {
	out := slices.Clone(tols)
	for _, d := range daemonTolerations {
		replaced := false
		for i, t := range out {
			if t.Key == d.Key && t.Operator == d.Operator && t.Value == d.Value && t.Effect == d.Effect {
				out[i], replaced = d, true
			}
		}
		if !replaced {
			out = append(out, d)
		}
	}
	return out
}

// podFor is the command that creates the DaemonSet's pod on node, named
// name with uid: its template, with the DaemonSet's tolerations and its
// template's hash and generation as labels, owned by the DaemonSet and
// bound to the node at once (spec.nodeName), so that herd's scheduler
// never sees it.
func podFor(ds domain.DaemonSet, node, name, uid string) domain.CreatePod {
	c := domain.PodFromTemplate(ds.Namespace, name, uid, ds.Spec.Template, ds.OwnerReference())
	c.Labels = domain.WithLabels(c.Labels, domain.LabelControllerRevisionHash, templateHash(ds),
		domain.LabelPodTemplateGeneration, strconv.FormatInt(ds.TemplateGeneration, 10))
	c.Spec.Tolerations = withDaemonTolerations(c.Spec.Tolerations)
	c.Spec.NodeName = node
	return c
}

// placement says whether the DaemonSet should run a pod on node n, as
// Kubernetes' NodeShouldRunDaemonPod does, by what the node is rather
// than by what runs on it: shouldRun when a pod of it would be placed
// there now; shouldContinue when a pod of it already there may stay.
//
// A node that runs no herd pod — a kubelet's, which runs Kubernetes'
// pods, or one that can hold none (allocatable pods 0, as a Pico) — is
// neither. A template bound to another node, or whose node selector the
// node's labels (herd.dev/kind among them) do not satisfy, is neither. A
// NoSchedule or NoExecute taint the pod does not tolerate (with the
// DaemonSet's own tolerations) keeps a new pod off, and one already there
// stays unless the taint is NoExecute. A node that is not Ready gets no
// new pod, as herd's scheduler places none there, but keeps its own.
func placement(ds domain.DaemonSet, n domain.Node) (shouldRun, shouldContinue bool) {
	if !n.Exists() || n.Kind == domain.KindKubelet {
		return false, false
	}
	alloc := n.Allocatable
	if alloc == nil {
		alloc = n.Capacity
	}
	if pods, ok := alloc["pods"]; ok && pods == 0 {
		return false, false
	}
	spec := ds.Spec.Template.Spec
	if spec.NodeName != "" && spec.NodeName != n.Name {
		return false, false
	}
	for k, v := range spec.NodeSelector {
		if got, ok := n.Labels[k]; !ok || got != v {
			return false, false
		}
	}
	tols := withDaemonTolerations(spec.Tolerations)
	if _, ok := domain.UntoleratedTaint(n.Taints, tols, domain.EffectNoSchedule, domain.EffectNoExecute); ok {
		_, evicted := domain.UntoleratedTaint(n.Taints, tols, domain.EffectNoExecute)
		return false, !evicted
	}
	if c, ok := n.Condition(domain.ConditionReady); !ok || c.Status != domain.ConditionTrue {
		return false, true
	}
	return true, true
}

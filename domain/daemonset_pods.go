package domain

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
)

// The labels a DaemonSet's pods carry, as Kubernetes' DaemonSet
// controller gives them: the hash of the template each was made from,
// and the DaemonSet's template generation then. A rolling update tells
// the pods of the current template from the older ones by either.
const (
	LabelControllerRevisionHash = "controller-revision-hash"
	LabelPodTemplateGeneration  = "pod-template-generation"
)

// hashAlphabet is what a template hash is spelt in: Kubernetes' own
// (rand.SafeEncodeString), without vowels, so that no word is spelt by
// chance, nor 0, 1 and 3.
const hashAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// TemplateHash names the DaemonSet's current template, as the
// controller-revision-hash label of its pods: the FNV-1a hash of the
// template's JSON, its decimal digits spelt in hashAlphabet, as
// Kubernetes spells its ComputeHash. The same template always has the
// same hash; a changed one almost surely another.
func (ds DaemonSet) TemplateHash() string { return PodTemplateHash(ds.Spec.Template) }

// DaemonSetRevision names the ControllerRevision of the DaemonSet's
// current template: its name and the template's hash, as Kubernetes names
// it (its pods' controller-revision-hash label is the hash alone).
func DaemonSetRevision(ds DaemonSet) string { return ds.Name + "-" + ds.TemplateHash() }

// NewDaemonSetRevision is the command that creates the ControllerRevision
// of the DaemonSet's current template, as Kubernetes' DaemonSet
// controller's snapshot does: named DaemonSetRevision(ds), labelled with
// the template's labels and its hash under controller-revision-hash,
// annotated as the DaemonSet is, owned by it; data is the template as the
// patch that restores it, number the revision's.
func NewDaemonSetRevision(ds DaemonSet, data []byte, number int64, uid string) CreateControllerRevision {
	return NewTemplateRevision(ds.ObjectMeta, ds.OwnerReference(), ds.Spec.Template, LabelControllerRevisionHash, data, number, uid)
}

// PodTemplateHash is the hash of a workload's pod template, as its pods'
// controller-revision-hash label names it (see DaemonSet.TemplateHash).
func PodTemplateHash(t PodTemplate) string {
	data, err := json.Marshal(t)
	if err != nil {
		// A template of strings, maps and numbers always encodes.
		panic("domain: a pod template does not encode: " + err.Error())
	}
	h := fnv.New32a()
	_, _ = h.Write(data)
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, d := range digits {
		digits[i] = hashAlphabet[int(d)%len(hashAlphabet)]
	}
	return string(digits)
}

// IsUpdated reports whether pod p was made from the DaemonSet's current
// template: its hash label is the template's, or its template generation
// label is the DaemonSet's (Kubernetes' IsPodUpdated).
func (ds DaemonSet) IsUpdated(p Pod) bool {
	return IsPodUpdated(p, ds.TemplateHash(), ds.TemplateGeneration)
}

// IsPodUpdated is IsUpdated with the template's hash and generation
// given, for a caller that asks of many pods: the hash encodes the
// template.
func IsPodUpdated(p Pod, hash string, generation int64) bool {
	if h, ok := p.Labels[LabelControllerRevisionHash]; ok && h == hash {
		return true
	}
	g, ok := p.Labels[LabelPodTemplateGeneration]
	return ok && g == strconv.FormatInt(generation, 10)
}

// daemonTolerations are the tolerations Kubernetes gives every pod of a
// DaemonSet (AddOrUpdateDaemonPodTolerations): it stays on a node that is
// not ready or unreachable, for ever, and goes on a node under memory,
// disk or PID pressure, or cordoned. A DaemonSet's pod does not tolerate
// network-unavailable: herd's pods have no host network.
var daemonTolerations = []Toleration{
	{Key: TaintNotReady, Operator: TolerationOpExists, Effect: EffectNoExecute},
	{Key: TaintUnreachable, Operator: TolerationOpExists, Effect: EffectNoExecute},
	{Key: TaintDiskPressure, Operator: TolerationOpExists, Effect: EffectNoSchedule},
	{Key: TaintMemoryPressure, Operator: TolerationOpExists, Effect: EffectNoSchedule},
	{Key: TaintPIDPressure, Operator: TolerationOpExists, Effect: EffectNoSchedule},
	{Key: TaintUnschedulable, Operator: TolerationOpExists, Effect: EffectNoSchedule},
}

// withDaemonTolerations returns tols with each of daemonTolerations added,
// or put in place of one that says the same but for its seconds, as
// Kubernetes' AddOrUpdateTolerationInPodSpec does.
func withDaemonTolerations(tols []Toleration) []Toleration {
	out := cloneSlice(tols)
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

// NewPod is the command that creates the DaemonSet's pod on node, named
// name with uid: its template, with the DaemonSet's tolerations and its
// template's hash and generation as labels, owned by the DaemonSet and
// bound to the node at once (spec.nodeName), so that herd's scheduler
// never sees it.
func (ds DaemonSet) NewPod(node, name, uid string) CreatePod {
	t := ds.Spec.Template.Clone()
	labels := WithLabels(t.Labels, LabelControllerRevisionHash, ds.TemplateHash(),
		LabelPodTemplateGeneration, strconv.FormatInt(ds.TemplateGeneration, 10))
	spec := t.Spec
	spec.Tolerations = withDaemonTolerations(spec.Tolerations)
	spec.NodeName = node
	return CreatePod{
		Namespace: ds.Namespace, Name: name, UID: uid,
		Labels: labels, Annotations: t.Annotations, Owners: []OwnerReference{ds.OwnerReference()},
		Spec: spec, TerminationGracePeriodSeconds: t.TerminationGracePeriodSeconds,
	}
}

// Placement says whether the DaemonSet should run a pod on node n, as
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
func (ds DaemonSet) Placement(n Node) (shouldRun, shouldContinue bool) {
	if !n.Exists() || n.Kind == KindKubelet {
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
	if _, ok := UntoleratedTaint(n.Taints, tols, EffectNoSchedule, EffectNoExecute); ok {
		_, evicted := UntoleratedTaint(n.Taints, tols, EffectNoExecute)
		return false, !evicted
	}
	if c, ok := n.Condition(ConditionReady); !ok || c.Status != ConditionTrue {
		return false, true
	}
	return true, true
}

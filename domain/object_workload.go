package domain

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
)

// The validation every workload kind on the model shares (ReplicaSet,
// Deployment, DaemonSet, StatefulSet, Job and, through its job template,
// CronJob), as kube-apiserver's apps and batch validation share it:
// counts that may not be negative, and a selector and the pod template
// it must select.

// nonNegative appends to errs the refusal of a count below 0 in field,
// in kube-apiserver's words (ValidateNonnegativeField).
func nonNegative[N ~int32 | ~int64](errs []FieldError, field string, v N) []FieldError {
	if v >= 0 {
		return errs
	}
	return append(errs, FieldError{Field: field, Value: strconv.FormatInt(int64(v), 10), Reason: "must be greater than or equal to 0"})
}

// selectedTemplateProblems checks a workload's selector and its pod
// template: a selector that is valid and not empty, which the template's
// labels satisfy, and a template whose labels, annotations and pod spec
// are valid, its fields named under spec.template.
func selectedTemplateProblems(sel LabelSelector, t PodTemplate) []FieldError {
	errs := sel.problems("spec.selector")
	if !sel.Empty() && !sel.Matches(t.Labels) {
		errs = append(errs, FieldError{Field: "spec.template.metadata.labels", Reason: "Invalid value: `selector` does not match template `labels`"})
	}
	return append(errs, templateProblems(t)...)
}

// templateProblems checks a pod template's labels, annotations and pod
// spec, its fields named under spec.template.
func templateProblems(t PodTemplate) []FieldError {
	errs := metadataProblems(t.Labels, t.Annotations)
	errs = append(errs, podSpecProblems(t.Spec)...)
	for i := range errs {
		errs[i].Field = "spec.template." + errs[i].Field
	}
	return errs
}

// The JSON the workload kinds' logs and views share (ObjectLayout): their
// creation and their update recorded alike, and the whole state of a
// workload whose state is the object model's alone (a ReplicaSet's, a
// StatefulSet's, a CronJob's; a DaemonSet and a Job keep more).
var (
	workloadCreatedLayout = []string{"namespace", "name", "uid", "labels,omitempty", "annotations,omitempty", "owners,omitempty", "spec", "at"}
	workloadUpdatedLayout = []string{"labels,omitempty", "annotations,omitempty", "spec", "generation", "at"}
	workloadLayout        = ObjectLayout{
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "owners,omitempty",
			"spec", "status", "generation", "createdAt", "deletionRequestedAt,omitempty", "deleted,omitempty", "orphan,omitempty",
			"version", "resourceVersion"},
		Created: workloadCreatedLayout, Updated: workloadUpdatedLayout, MetadataChanged: metadataChangedLayout,
	}
)

// WithLabels is a copy of labels with each key and value of kv (a key, a
// value, a key, a value...) set: the labels a workload's pod or revision
// takes from its template, with its own beside them.
func WithLabels(labels map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(labels)+len(kv)/2)
	maps.Copy(out, labels)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// NewTemplateRevision is the command that creates the ControllerRevision
// of pod template t of the workload of metadata owner, referred to as
// ref: named as the workload with the template's hash, labelled with the
// template's labels and the hash under hashLabel, annotated as the
// workload is, owned by it; data is the template as the patch that
// restores it, number the revision's. It is Kubernetes' snapshot of a
// DaemonSet's or a StatefulSet's template, which name the hash under
// labels of their own.
func NewTemplateRevision(owner ObjectMeta, ref OwnerReference, t PodTemplate, hashLabel string, data []byte, number int64, uid string) CreateControllerRevision {
	hash := PodTemplateHash(t)
	return CreateControllerRevision{
		Meta: ObjectMeta{Namespace: owner.Namespace, Name: owner.Name + "-" + hash, UID: uid,
			Labels: WithLabels(t.Labels, hashLabel, hash), Annotations: cloneStrings(owner.Annotations), Owners: []OwnerReference{ref}},
		Spec: ControllerRevisionSpec{Data: bytes.Clone(data), Revision: number},
	}
}

// Clone is a copy of the template that shares nothing with it.
func (t PodTemplate) Clone() PodTemplate {
	c := t
	c.Labels, c.Annotations = cloneStrings(t.Labels), cloneStrings(t.Annotations)
	c.Spec = t.Spec.clone()
	if t.TerminationGracePeriodSeconds != nil {
		g := *t.TerminationGracePeriodSeconds
		c.TerminationGracePeriodSeconds = &g
	}
	return c
}

// PodFromTemplate is the command that creates a workload's pod in
// namespace, named name with uid: a copy of template t, owned by owner,
// as Kubernetes' controllers make one (GetPodFromTemplate). A
// controller adds what is its own (labels, tolerations, a node) to it.
func PodFromTemplate(namespace, name, uid string, t PodTemplate, owner OwnerReference) CreatePod {
	t = t.Clone()
	return CreatePod{
		Namespace: namespace, Name: name, UID: uid,
		Labels: t.Labels, Annotations: t.Annotations, Owners: []OwnerReference{owner},
		Spec: t.Spec, TerminationGracePeriodSeconds: t.TerminationGracePeriodSeconds,
	}
}

// partOf appends to errs the refusal of a count in field above the count
// whole (named by wholeField) it is part of, in kube-apiserver's words.
func partOf(errs []FieldError, field string, v int32, wholeField string, whole int32) []FieldError {
	if v <= whole {
		return errs
	}
	return append(errs, FieldError{Field: field, Value: strconv.FormatInt(int64(v), 10), Reason: "cannot be greater than " + wholeField})
}

// replicaCountProblems checks the counts of a status of replicas that
// every apps/v1 workload with replicas writes: none negative, none above
// status.replicas, and no more available replicas than ready ones.
func replicaCountProblems(replicas, ready, available int32, observed int64, parts map[string]int32) []FieldError {
	errs := nonNegative(nil, "status.replicas", replicas)
	errs = nonNegative(errs, "status.readyReplicas", ready)
	errs = nonNegative(errs, "status.availableReplicas", available)
	errs = nonNegative(errs, "status.observedGeneration", observed)
	for _, f := range slices.Sorted(maps.Keys(parts)) {
		errs = nonNegative(errs, f, parts[f])
	}
	errs = partOf(errs, "status.readyReplicas", ready, "status.replicas", replicas)
	errs = partOf(errs, "status.availableReplicas", available, "status.replicas", replicas)
	for _, f := range slices.Sorted(maps.Keys(parts)) {
		errs = partOf(errs, f, parts[f], "status.replicas", replicas)
	}
	return partOf(errs, "status.availableReplicas", available, "readyReplicas", ready)
}

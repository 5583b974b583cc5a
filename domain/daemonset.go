package domain

import (
	"fmt"
	"slices"
	"time"
)

// DaemonSet is the DaemonSet aggregate (apps/v1): one pod made from
// Template on every node that fits it. The daemonset reconciler acts on
// it; the view stores it as its row, so it is also the aggregate's
// snapshot.
type DaemonSet struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        DaemonSetSpec     `json:"spec"`
	Status      DaemonSetStatus   `json:"status"`
	// Generation counts the changes to Spec, as metadata.generation does;
	// Status.ObservedGeneration says which the reconciler last acted on.
	Generation int64 `json:"generation"`
	// TemplateGeneration counts the changes to Spec.Template alone, as
	// kube-apiserver's deprecated.daemonset.template.generation
	// annotation does; each pod carries the one it was made from as its
	// pod-template-generation label.
	TemplateGeneration int64     `json:"templateGeneration"`
	CreatedAt          time.Time `json:"createdAt"`
	// DeletionRequestedAt is when a deletion in the foreground was asked
	// for: the DaemonSet stays until its pods are gone.
	DeletionRequestedAt *time.Time `json:"deletionRequestedAt,omitempty"`
	// Deleted marks a DaemonSet removed; the row stays as a tombstone,
	// with the UID it had and whether its pods were to be orphaned.
	Deleted bool `json:"deleted,omitempty"`
	Orphan  bool `json:"orphan,omitempty"`
	// Version is the number of events in the stream; ResourceVersion the
	// log position of the last, set by the projection.
	Version         int64 `json:"version"`
	ResourceVersion int64 `json:"resourceVersion"`
}

// DaemonSetSpec is what a DaemonSet asks for.
type DaemonSetSpec struct {
	Selector LabelSelector `json:"selector"`
	Template PodTemplate   `json:"template"`
	// UpdateStrategy says how pods made from an older template are
	// replaced.
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy"`
	// MinReadySeconds is how long a pod must have been ready to count as
	// available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is how many old revisions Kubernetes would
	// keep; herd keeps none (it serves no ControllerRevisions) and only
	// stores the number.
	RevisionHistoryLimit int32 `json:"revisionHistoryLimit"`
}

// The update strategies of a DaemonSet, as Kubernetes spells them.
const (
	// DaemonSetRollingUpdate replaces the pods of an older template by
	// itself, a few nodes at a time.
	DaemonSetRollingUpdate = "RollingUpdate"
	// DaemonSetOnDelete makes a pod of the new template only once the old
	// one has been deleted by someone else.
	DaemonSetOnDelete = "OnDelete"
)

// DaemonSetUpdateStrategy is a DaemonSet's spec.updateStrategy.
type DaemonSetUpdateStrategy struct {
	// Type is DaemonSetRollingUpdate or DaemonSetOnDelete.
	Type string `json:"type"`
	// RollingUpdate is set for a rolling update, nil otherwise.
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDaemonSet bounds a rolling update: at most MaxUnavailable
// of the nodes that should run a pod may be without an available one
// while old pods are deleted first, or, when MaxSurge is set instead, at
// most MaxSurge nodes may run a new pod beside the old one until it is
// available. Exactly one of the two is not zero.
type RollingUpdateDaemonSet struct {
	MaxUnavailable IntOrPercent `json:"maxUnavailable"`
	MaxSurge       IntOrPercent `json:"maxSurge"`
}

// DaemonSetStatus is what the reconciler last saw of the DaemonSet's
// nodes and pods, in Kubernetes' counts.
type DaemonSetStatus struct {
	// CurrentNumberScheduled counts the nodes that should run a pod and
	// run at least one.
	CurrentNumberScheduled int32 `json:"currentNumberScheduled"`
	// NumberMisscheduled counts the nodes that run a pod but should not.
	NumberMisscheduled int32 `json:"numberMisscheduled"`
	// DesiredNumberScheduled counts the nodes that should run a pod.
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled"`
	// NumberReady counts the nodes whose pod is ready.
	NumberReady int32 `json:"numberReady"`
	// ObservedGeneration is the generation the reconciler acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// UpdatedNumberScheduled counts the nodes whose pod is made from the
	// current template.
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled,omitempty"`
	// NumberAvailable counts the nodes whose pod has been ready for
	// MinReadySeconds; NumberUnavailable the others that should run one.
	NumberAvailable   int32 `json:"numberAvailable,omitempty"`
	NumberUnavailable int32 `json:"numberUnavailable,omitempty"`
}

// Exists reports whether the DaemonSet was created and not deleted.
func (ds DaemonSet) Exists() bool { return ds.Version > 0 && !ds.Deleted }

// Key names the DaemonSet.
func (ds DaemonSet) Key() Key { return Key{Namespace: ds.Namespace, Name: ds.Name} }

// String is "namespace/name", as logs name the DaemonSet.
func (ds DaemonSet) String() string { return fmt.Sprintf("%s/%s", ds.Namespace, ds.Name) }

// KindDaemonSet is the kind an owner reference names a DaemonSet by.
const KindDaemonSet = "DaemonSet"

// Owns reports whether pod p is the DaemonSet's: its controller owner
// reference names this DaemonSet by UID.
func (ds DaemonSet) Owns(p Pod) bool {
	return slices.ContainsFunc(p.Owners, func(o OwnerReference) bool {
		return o.Controller && o.Kind == KindDaemonSet && o.UID == ds.UID
	})
}

// OwnerReference is how the DaemonSet's pods name it: their
// controller, blocking its deletion in the foreground, as Kubernetes'
// controllers write it.
func (ds DaemonSet) OwnerReference() OwnerReference {
	return OwnerReference{APIVersion: "apps/v1", Kind: KindDaemonSet, Name: ds.Name, UID: ds.UID, Controller: true, BlockOwnerDeletion: true}
}

// DaemonSetStream is the name of the log stream of a DaemonSet.
func DaemonSetStream(namespace, name string) string {
	return DaemonSetAggregate.Stream(namespace + "/" + name)
}

// DaemonSetCreated records a DaemonSet's creation.
type DaemonSetCreated struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        DaemonSetSpec     `json:"spec"`
	At          time.Time         `json:"at"`
}

// DaemonSetChanged records a new spec, labels or annotations; Generation
// and TemplateGeneration are the DaemonSet's afterwards.
type DaemonSetChanged struct {
	Labels             map[string]string `json:"labels,omitempty"`
	Annotations        map[string]string `json:"annotations,omitempty"`
	Spec               DaemonSetSpec     `json:"spec"`
	Generation         int64             `json:"generation"`
	TemplateGeneration int64             `json:"templateGeneration"`
	At                 time.Time         `json:"at"`
}

// DaemonSetStatusRecorded records what the reconciler saw of the
// DaemonSet's nodes and pods.
type DaemonSetStatusRecorded struct {
	Status DaemonSetStatus `json:"status"`
	At     time.Time       `json:"at"`
}

// DaemonSetDeleted records a DaemonSet's deletion; Orphan says its pods
// stay, their reference to it taken off.
type DaemonSetDeleted struct {
	Orphan bool      `json:"orphan,omitempty"`
	At     time.Time `json:"at"`
}

// DaemonSetDeletionRequested records a deletion in the foreground: the
// DaemonSet stays, being deleted, until its pods are gone.
type DaemonSetDeletionRequested struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (DaemonSetCreated) EventType() string { return "DaemonSetCreated" }

// EventType implements Event.
func (DaemonSetChanged) EventType() string { return "DaemonSetChanged" }

// EventType implements Event.
func (DaemonSetStatusRecorded) EventType() string { return "DaemonSetStatusRecorded" }

// EventType implements Event.
func (DaemonSetDeleted) EventType() string { return "DaemonSetDeleted" }

// EventType implements Event.
func (DaemonSetDeletionRequested) EventType() string { return "DaemonSetDeletionRequested" }

// DaemonSetOwnersChanged records the DaemonSet's new owner references: one
// taken off by the garbage collector, its owner deleted with its
// dependents orphaned or waiting for them while another owner keeps it.
type DaemonSetOwnersChanged struct {
	Owners []OwnerReference `json:"owners,omitempty"`
	At     time.Time        `json:"at"`
}

// EventType implements Event.
func (DaemonSetOwnersChanged) EventType() string { return "DaemonSetOwnersChanged" }

// DaemonSetAggregate is the DaemonSet in the log: streams
// "daemonset/NAMESPACE/NAME".
var DaemonSetAggregate = defineNamespacedAggregate("daemonset",
	eventOf[DaemonSetCreated](1),
	eventOf[DaemonSetChanged](1),
	eventOf[DaemonSetStatusRecorded](1),
	eventOf[DaemonSetDeleted](1),
	eventOf[DaemonSetDeletionRequested](1),
	eventOf[DaemonSetOwnersChanged](1),
)

// EvolveDaemonSet folds one event into the DaemonSet; it never mutates
// ds.
func EvolveDaemonSet(ds DaemonSet, e Event) DaemonSet {
	ds.Version++
	switch e := e.(type) {
	case DaemonSetCreated:
		return DaemonSet{
			Namespace: e.Namespace, Name: e.Name, UID: e.UID,
			Labels: cloneStrings(e.Labels), Annotations: cloneStrings(e.Annotations), Owners: slices.Clone(e.Owners),
			Spec: e.Spec.clone(), Generation: 1, TemplateGeneration: 1, CreatedAt: e.At,
			Version: ds.Version, ResourceVersion: ds.ResourceVersion,
		}
	case DaemonSetChanged:
		ds.Labels, ds.Annotations = cloneStrings(e.Labels), cloneStrings(e.Annotations)
		ds.Spec, ds.Generation, ds.TemplateGeneration = e.Spec.clone(), e.Generation, e.TemplateGeneration
	case DaemonSetStatusRecorded:
		ds.Status = e.Status
	case DaemonSetDeletionRequested:
		ds.DeletionRequestedAt = timePtr(e.At)
	case DaemonSetOwnersChanged:
		ds.Owners = slices.Clone(e.Owners)
	case DaemonSetDeleted:
		return DaemonSet{Namespace: ds.Namespace, Name: ds.Name, UID: ds.UID, Deleted: true, Orphan: e.Orphan, Version: ds.Version, ResourceVersion: ds.ResourceVersion}
	}
	return ds
}

func (s DaemonSetSpec) clone() DaemonSetSpec {
	c := s
	c.Selector = s.Selector.clone()
	c.Template = s.Template.clone()
	if s.UpdateStrategy.RollingUpdate != nil {
		ru := *s.UpdateStrategy.RollingUpdate
		c.UpdateStrategy.RollingUpdate = &ru
	}
	return c
}

package domain

import (
	"fmt"
	"slices"
	"time"
)

// ReplicaSet is the ReplicaSet aggregate (apps/v1): keep Replicas pods
// that match Selector running, made from Template. The replicaset
// reconciler acts on it; the view stores it as its row, so it is also the
// aggregate's snapshot.
type ReplicaSet struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        ReplicaSetSpec    `json:"spec"`
	Status      ReplicaSetStatus  `json:"status"`
	// Generation counts the changes to Spec, as metadata.generation does;
	// Status.ObservedGeneration says which the reconciler last acted on.
	Generation int64     `json:"generation"`
	CreatedAt  time.Time `json:"createdAt"`
	// DeletionRequestedAt is when a deletion in the foreground was asked
	// for: the ReplicaSet stays until its pods are gone.
	DeletionRequestedAt *time.Time `json:"deletionRequestedAt,omitempty"`
	// Deleted marks a ReplicaSet removed; the row stays as a tombstone,
	// with the UID it had and whether its pods were to be orphaned.
	Deleted bool `json:"deleted,omitempty"`
	Orphan  bool `json:"orphan,omitempty"`
	// Version is the number of events in the stream; ResourceVersion the
	// log position of the last, set by the projection.
	Version         int64 `json:"version"`
	ResourceVersion int64 `json:"resourceVersion"`
}

// ReplicaSetSpec is what a ReplicaSet asks for.
type ReplicaSetSpec struct {
	Replicas int32         `json:"replicas"`
	Selector LabelSelector `json:"selector"`
	Template PodTemplate   `json:"template"`
	// MinReadySeconds is how long a pod must have been ready to count as
	// available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
}

// PodTemplate is what a workload makes its pods from.
type PodTemplate struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        PodSpec           `json:"spec"`
	// TerminationGracePeriodSeconds is the pods' grace period; nil for
	// Kubernetes' default.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
}

// ReplicaSetStatus is what the reconciler last saw of the ReplicaSet's
// pods.
type ReplicaSetStatus struct {
	Replicas             int32 `json:"replicas"`
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32 `json:"availableReplicas,omitempty"`
	ObservedGeneration   int64 `json:"observedGeneration,omitempty"`
}

// Exists reports whether the ReplicaSet was created and not deleted.
func (rs ReplicaSet) Exists() bool { return rs.Version > 0 && !rs.Deleted }

// Key names the ReplicaSet.
func (rs ReplicaSet) Key() Key { return Key{Namespace: rs.Namespace, Name: rs.Name} }

// Owns reports whether pod p is the ReplicaSet's: its controller owner
// reference names this ReplicaSet by UID.
func (rs ReplicaSet) Owns(p Pod) bool {
	return slices.ContainsFunc(p.Owners, func(o OwnerReference) bool {
		return o.Controller && o.Kind == "ReplicaSet" && o.UID == rs.UID
	})
}

// OwnerReference is how the ReplicaSet's pods name it: their controller,
// blocking its deletion in the foreground, as Kubernetes' controllers
// write it.
func (rs ReplicaSet) OwnerReference() OwnerReference {
	return OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: true, BlockOwnerDeletion: true}
}

// ReplicaSetStream is the name of the log stream of a ReplicaSet.
func ReplicaSetStream(namespace, name string) string {
	return ReplicaSetAggregate.Stream(namespace + "/" + name)
}

// ReplicaSetCreated records a ReplicaSet's creation.
type ReplicaSetCreated struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        ReplicaSetSpec    `json:"spec"`
	At          time.Time         `json:"at"`
}

// ReplicaSetChanged records a new spec, labels or annotations; Generation
// is the ReplicaSet's generation afterwards.
type ReplicaSetChanged struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        ReplicaSetSpec    `json:"spec"`
	Generation  int64             `json:"generation"`
	At          time.Time         `json:"at"`
}

// ReplicaSetStatusRecorded records what the reconciler saw of the
// ReplicaSet's pods.
type ReplicaSetStatusRecorded struct {
	Status ReplicaSetStatus `json:"status"`
	At     time.Time        `json:"at"`
}

// ReplicaSetDeleted records a ReplicaSet's deletion; Orphan says its pods
// stay, their reference to it taken off.
type ReplicaSetDeleted struct {
	Orphan bool      `json:"orphan,omitempty"`
	At     time.Time `json:"at"`
}

// ReplicaSetDeletionRequested records a deletion in the foreground: the
// ReplicaSet stays, being deleted, until its pods are gone.
type ReplicaSetDeletionRequested struct {
	At time.Time `json:"at"`
}

// ReplicaSetOwnersChanged records the ReplicaSet's new owner references:
// one taken off when its owner was deleted with its dependents orphaned.
type ReplicaSetOwnersChanged struct {
	Owners []OwnerReference `json:"owners,omitempty"`
	At     time.Time        `json:"at"`
}

// EventType implements Event.
func (ReplicaSetCreated) EventType() string { return "ReplicaSetCreated" }

// EventType implements Event.
func (ReplicaSetChanged) EventType() string { return "ReplicaSetChanged" }

// EventType implements Event.
func (ReplicaSetStatusRecorded) EventType() string { return "ReplicaSetStatusRecorded" }

// EventType implements Event.
func (ReplicaSetDeleted) EventType() string { return "ReplicaSetDeleted" }

// EventType implements Event.
func (ReplicaSetDeletionRequested) EventType() string { return "ReplicaSetDeletionRequested" }

// EventType implements Event.
func (ReplicaSetOwnersChanged) EventType() string { return "ReplicaSetOwnersChanged" }

// ReplicaSetAggregate is the ReplicaSet in the log: streams
// "replicaset/NAMESPACE/NAME".
var ReplicaSetAggregate = defineNamespacedAggregate("replicaset",
	eventOf[ReplicaSetCreated](1),
	eventOf[ReplicaSetChanged](1),
	eventOf[ReplicaSetStatusRecorded](1),
	eventOf[ReplicaSetDeleted](1),
	eventOf[ReplicaSetDeletionRequested](1),
	eventOf[ReplicaSetOwnersChanged](1),
)

// EvolveReplicaSet folds one event into the ReplicaSet; it never mutates
// rs.
func EvolveReplicaSet(rs ReplicaSet, e Event) ReplicaSet {
	rs.Version++
	switch e := e.(type) {
	case ReplicaSetCreated:
		return ReplicaSet{
			Namespace: e.Namespace, Name: e.Name, UID: e.UID,
			Labels: cloneStrings(e.Labels), Annotations: cloneStrings(e.Annotations), Owners: slices.Clone(e.Owners),
			Spec: e.Spec.clone(), Generation: 1, CreatedAt: e.At, Version: rs.Version, ResourceVersion: rs.ResourceVersion,
		}
	case ReplicaSetChanged:
		rs.Labels, rs.Annotations = cloneStrings(e.Labels), cloneStrings(e.Annotations)
		rs.Spec, rs.Generation = e.Spec.clone(), e.Generation
	case ReplicaSetStatusRecorded:
		rs.Status = e.Status
	case ReplicaSetDeletionRequested:
		rs.DeletionRequestedAt = timePtr(e.At)
	case ReplicaSetOwnersChanged:
		rs.Owners = slices.Clone(e.Owners)
	case ReplicaSetDeleted:
		return ReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, Deleted: true, Orphan: e.Orphan, Version: rs.Version, ResourceVersion: rs.ResourceVersion}
	}
	return rs
}

func (s ReplicaSetSpec) clone() ReplicaSetSpec {
	c := s
	c.Selector = s.Selector.clone()
	c.Template = s.Template.clone()
	return c
}

func (t PodTemplate) clone() PodTemplate {
	c := t
	c.Labels, c.Annotations = cloneStrings(t.Labels), cloneStrings(t.Annotations)
	c.Spec = t.Spec.clone()
	if t.TerminationGracePeriodSeconds != nil {
		g := *t.TerminationGracePeriodSeconds
		c.TerminationGracePeriodSeconds = &g
	}
	return c
}

// NewPod is the command that creates one of the ReplicaSet's pods, named
// name with uid: its template, owned by the ReplicaSet.
func (rs ReplicaSet) NewPod(name, uid string) CreatePod {
	t := rs.Spec.Template.clone()
	return CreatePod{
		Namespace: rs.Namespace, Name: name, UID: uid,
		Labels: t.Labels, Annotations: t.Annotations, Owners: []OwnerReference{rs.OwnerReference()},
		Spec: t.Spec, TerminationGracePeriodSeconds: t.TerminationGracePeriodSeconds,
	}
}

// String is "namespace/name", as logs name the ReplicaSet.
func (rs ReplicaSet) String() string { return fmt.Sprintf("%s/%s", rs.Namespace, rs.Name) }

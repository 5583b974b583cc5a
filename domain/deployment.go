package domain

import (
	"fmt"
	"slices"
	"time"
)

// Deployment is the Deployment aggregate (apps/v1): Replicas pods made
// from Template, through one ReplicaSet per revision of the template,
// rolled from one revision to the next by Strategy. The deployment
// reconciler acts on it; the view stores it as its row, so it is also the
// aggregate's snapshot.
type Deployment struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        DeploymentSpec    `json:"spec"`
	Status      DeploymentStatus  `json:"status"`
	// Generation counts the changes to Spec, as metadata.generation does.
	Generation int64     `json:"generation"`
	CreatedAt  time.Time `json:"createdAt"`
	// DeletionRequestedAt is when a deletion in the foreground was asked
	// for: the Deployment stays until its ReplicaSets are gone.
	DeletionRequestedAt *time.Time `json:"deletionRequestedAt,omitempty"`
	// Deleted marks a Deployment removed; the row stays as a tombstone,
	// with the UID it had and whether its ReplicaSets were to be
	// orphaned.
	Deleted bool `json:"deleted,omitempty"`
	Orphan  bool `json:"orphan,omitempty"`
	// Version is the number of events in the stream; ResourceVersion the
	// log position of the last, set by the projection.
	Version         int64 `json:"version"`
	ResourceVersion int64 `json:"resourceVersion"`
}

// DeploymentSpec is what a Deployment asks for.
type DeploymentSpec struct {
	Replicas int32              `json:"replicas"`
	Selector LabelSelector      `json:"selector"`
	Template PodTemplate        `json:"template"`
	Strategy DeploymentStrategy `json:"strategy"`
	// MinReadySeconds is how long a pod must have been ready to count as
	// available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is how many old ReplicaSets, scaled to zero,
	// are kept for rollbacks.
	RevisionHistoryLimit int32 `json:"revisionHistoryLimit"`
	// Paused stops rollouts: a new template makes no new ReplicaSet until
	// it is resumed.
	Paused bool `json:"paused,omitempty"`
	// ProgressDeadlineSeconds is how long a rollout may go without
	// progress before Progressing turns False (ProgressDeadlineExceeded).
	ProgressDeadlineSeconds int32 `json:"progressDeadlineSeconds"`
}

// The strategies a Deployment rolls out by.
const (
	RollingUpdateStrategy = "RollingUpdate"
	RecreateStrategy      = "Recreate"
)

// DeploymentStrategy is how a Deployment replaces old pods by new ones:
// all at once (Recreate), or a few at a time (RollingUpdate), at most
// MaxSurge above the replicas and MaxUnavailable below them.
type DeploymentStrategy struct {
	Type           string        `json:"type"`
	MaxSurge       *IntOrPercent `json:"maxSurge,omitempty"`
	MaxUnavailable *IntOrPercent `json:"maxUnavailable,omitempty"`
}

// DeploymentStatus is what the reconciler last saw of the Deployment's
// ReplicaSets.
type DeploymentStatus struct {
	ObservedGeneration  int64               `json:"observedGeneration,omitempty"`
	Replicas            int32               `json:"replicas,omitempty"`
	UpdatedReplicas     int32               `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32               `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32               `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32               `json:"unavailableReplicas,omitempty"`
	Conditions          []WorkloadCondition `json:"conditions,omitempty"`
	CollisionCount      int32               `json:"collisionCount,omitempty"`
}

// WorkloadCondition is one condition of a workload's status, as
// apps/v1's: Available and Progressing for a Deployment.
type WorkloadCondition struct {
	Type           string    `json:"type"`
	Status         string    `json:"status"`
	Reason         string    `json:"reason,omitempty"`
	Message        string    `json:"message,omitempty"`
	LastUpdate     time.Time `json:"lastUpdate"`
	LastTransition time.Time `json:"lastTransition"`
}

// Condition returns the status's condition of type t.
func (s DeploymentStatus) Condition(t string) (WorkloadCondition, bool) {
	i := slices.IndexFunc(s.Conditions, func(c WorkloadCondition) bool { return c.Type == t })
	if i < 0 {
		return WorkloadCondition{}, false
	}
	return s.Conditions[i], true
}

// equal reports whether two statuses say the same.
func (s DeploymentStatus) equal(o DeploymentStatus) bool {
	same := s.ObservedGeneration == o.ObservedGeneration && s.Replicas == o.Replicas && s.UpdatedReplicas == o.UpdatedReplicas &&
		s.ReadyReplicas == o.ReadyReplicas && s.AvailableReplicas == o.AvailableReplicas &&
		s.UnavailableReplicas == o.UnavailableReplicas && s.CollisionCount == o.CollisionCount
	return same && slices.EqualFunc(s.Conditions, o.Conditions, func(x, y WorkloadCondition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message &&
			x.LastUpdate.Equal(y.LastUpdate) && x.LastTransition.Equal(y.LastTransition)
	})
}

// The annotations a Deployment and its ReplicaSets carry, as Kubernetes'
// deployment controller writes them and kubectl rollout reads them.
const (
	// RevisionAnnotation is the revision of a ReplicaSet's template, and
	// on the Deployment the revision it runs.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// ChangeCauseAnnotation is what the user said a change was for.
	ChangeCauseAnnotation = "kubernetes.io/change-cause"
	// PodTemplateHashLabel tells a revision's ReplicaSet and pods apart.
	PodTemplateHashLabel = "pod-template-hash"
)

// Exists reports whether the Deployment was created and not deleted.
func (d Deployment) Exists() bool { return d.Version > 0 && !d.Deleted }

// Key names the Deployment.
func (d Deployment) Key() Key { return Key{Namespace: d.Namespace, Name: d.Name} }

// OwnerReference is how the Deployment's ReplicaSets name it: their
// controller, blocking its deletion in the foreground, as Kubernetes'
// controllers write it.
func (d Deployment) OwnerReference() OwnerReference {
	return OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: true, BlockOwnerDeletion: true}
}

// Owns reports whether ReplicaSet rs is the Deployment's: its controller
// owner reference names this Deployment by UID.
func (d Deployment) Owns(rs ReplicaSet) bool {
	return slices.ContainsFunc(rs.Owners, func(o OwnerReference) bool {
		return o.Controller && o.Kind == "Deployment" && o.UID == d.UID
	})
}

// String is "namespace/name", as logs name the Deployment.
func (d Deployment) String() string { return fmt.Sprintf("%s/%s", d.Namespace, d.Name) }

// DeploymentCreated records a Deployment's creation.
type DeploymentCreated struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        DeploymentSpec    `json:"spec"`
	At          time.Time         `json:"at"`
}

// DeploymentChanged records new labels, annotations or spec; Generation
// is the Deployment's generation afterwards.
type DeploymentChanged struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        DeploymentSpec    `json:"spec"`
	Generation  int64             `json:"generation"`
	At          time.Time         `json:"at"`
}

// DeploymentStatusRecorded records what the reconciler saw of the
// Deployment's ReplicaSets, and the revision it runs when that changed.
type DeploymentStatusRecorded struct {
	Status   DeploymentStatus `json:"status"`
	Revision string           `json:"revision,omitempty"`
	At       time.Time        `json:"at"`
}

// DeploymentDeleted records a Deployment's deletion; Orphan says its
// ReplicaSets stay, their reference to it taken off.
type DeploymentDeleted struct {
	Orphan bool      `json:"orphan,omitempty"`
	At     time.Time `json:"at"`
}

// DeploymentDeletionRequested records a deletion in the foreground: the
// Deployment stays, being deleted, until its ReplicaSets are gone.
type DeploymentDeletionRequested struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (DeploymentCreated) EventType() string { return "DeploymentCreated" }

// EventType implements Event.
func (DeploymentChanged) EventType() string { return "DeploymentChanged" }

// EventType implements Event.
func (DeploymentStatusRecorded) EventType() string { return "DeploymentStatusRecorded" }

// EventType implements Event.
func (DeploymentDeleted) EventType() string { return "DeploymentDeleted" }

// EventType implements Event.
func (DeploymentDeletionRequested) EventType() string { return "DeploymentDeletionRequested" }

// DeploymentAggregate is the Deployment in the log: streams
// "deployment/NAMESPACE/NAME".
var DeploymentAggregate = defineNamespacedAggregate("deployment",
	eventOf[DeploymentCreated](1),
	eventOf[DeploymentChanged](1),
	eventOf[DeploymentStatusRecorded](1),
	eventOf[DeploymentDeleted](1),
	eventOf[DeploymentDeletionRequested](1),
)

// EvolveDeployment folds one event into the Deployment; it never mutates
// d.
func EvolveDeployment(d Deployment, e Event) Deployment {
	d.Version++
	switch e := e.(type) {
	case DeploymentCreated:
		return Deployment{
			Namespace: e.Namespace, Name: e.Name, UID: e.UID,
			Labels: cloneStrings(e.Labels), Annotations: cloneStrings(e.Annotations),
			Spec: e.Spec.clone(), Generation: 1, CreatedAt: e.At, Version: d.Version, ResourceVersion: d.ResourceVersion,
		}
	case DeploymentChanged:
		d.Labels, d.Annotations = cloneStrings(e.Labels), cloneStrings(e.Annotations)
		d.Spec, d.Generation = e.Spec.clone(), e.Generation
	case DeploymentStatusRecorded:
		d.Status = e.Status.clone()
		if e.Revision != "" {
			d.Annotations = cloneStrings(d.Annotations)
			if d.Annotations == nil {
				d.Annotations = map[string]string{}
			}
			d.Annotations[RevisionAnnotation] = e.Revision
		}
	case DeploymentDeletionRequested:
		d.DeletionRequestedAt = timePtr(e.At)
	case DeploymentDeleted:
		return Deployment{Namespace: d.Namespace, Name: d.Name, UID: d.UID, Deleted: true, Orphan: e.Orphan, Version: d.Version, ResourceVersion: d.ResourceVersion}
	}
	return d
}

func (s DeploymentSpec) clone() DeploymentSpec {
	c := s
	c.Selector = s.Selector.clone()
	c.Template = s.Template.clone()
	return c
}

func (s DeploymentStatus) clone() DeploymentStatus {
	c := s
	c.Conditions = slices.Clone(s.Conditions)
	return c
}

// DeploymentStream is the name of the log stream of a Deployment.
func DeploymentStream(namespace, name string) string {
	return DeploymentAggregate.Stream(namespace + "/" + name)
}

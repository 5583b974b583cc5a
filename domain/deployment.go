package domain

import (
	"slices"
	"time"
)

// Deployment is the Deployment aggregate (apps/v1): Replicas pods made
// from Template, through one ReplicaSet per revision of the template,
// rolled from one revision to the next by Strategy. The deployment
// reconciler acts on it. It is a kind on the object model (see Object):
// a change of its spec is a new generation; it owns its ReplicaSets
// (Owns, OwnerReference), which follow its deletion as the delete's
// propagation says, and its tombstone keeps its UID and whether they
// were orphaned. Its status records are its own event
// (DeploymentStatusRecorded), which carries the revision it runs.
type Deployment = Object[DeploymentSpec, DeploymentStatus]

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

// The Deployment's events, under the names they have always had in the
// log.
type (
	// DeploymentCreated records a Deployment's creation.
	DeploymentCreated = ObjectCreated[DeploymentSpec, DeploymentStatus]
	// DeploymentChanged records a new spec, with the labels and
	// annotations beside it; Generation is the Deployment's generation
	// afterwards.
	DeploymentChanged = ObjectUpdated[DeploymentSpec, DeploymentStatus]
	// DeploymentMetadataChanged records new labels or annotations alone:
	// the spec and generation stay as they were.
	DeploymentMetadataChanged = ObjectMetadataChanged[DeploymentSpec, DeploymentStatus]
	// DeploymentDeleted records a Deployment's deletion; Orphan says its
	// ReplicaSets stay, their reference to it taken off.
	DeploymentDeleted = ObjectDeleted[DeploymentSpec, DeploymentStatus]
	// DeploymentDeletionRequested records a deletion in the foreground:
	// the Deployment stays, being deleted, until its ReplicaSets are
	// gone.
	DeploymentDeletionRequested = ObjectDeletionRequested[DeploymentSpec, DeploymentStatus]
	// DeploymentOwnersChanged records the Deployment's new owner
	// references: one taken off when its owner was deleted with its
	// dependents orphaned.
	DeploymentOwnersChanged = ObjectOwnersChanged[DeploymentSpec, DeploymentStatus]
)

// DeploymentStatusRecorded records what the reconciler saw of the
// Deployment's ReplicaSets, and the revision it runs when that changed
// (its deployment.kubernetes.io/revision annotation). It is the
// Deployment's own event, beside the object model's: a status record
// that also sets an annotation.
type DeploymentStatusRecorded struct {
	Status   DeploymentStatus `json:"status"`
	Revision string           `json:"revision,omitempty"`
	At       time.Time        `json:"at"`
}

// EventType implements Event.
func (DeploymentStatusRecorded) EventType() string { return "DeploymentStatusRecorded" }

// deploymentKind is what is the Deployment's own on the object model.
var deploymentKind = &ObjectKind[DeploymentSpec, DeploymentStatus]{
	Kind: "Deployment", Resource: "deployments.apps", APIVersion: "apps/v1",
	Created: "DeploymentCreated", Updated: "DeploymentChanged", Deleted: "DeploymentDeleted",
	MetadataChanged:   "DeploymentMetadataChanged",
	DeletionRequested: "DeploymentDeletionRequested", OwnersChanged: "DeploymentOwnersChanged",
	OwnsDependents: true, UpdateReplacesOwners: true,
	Layout: workloadLayout,
	Strategy: Strategy[DeploymentSpec, DeploymentStatus]{
		Validate:                  func(_ ObjectMeta, s DeploymentSpec) []FieldError { return deploymentSpecProblems(s) },
		ValidateUpdate:            selectorImmutable[DeploymentSpec],
		SpecChangeBumpsGeneration: true,
		ValidateStatus: func(_ DeploymentSpec, _, s DeploymentStatus) []FieldError {
			errs := replicaCountProblems(s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.ObservedGeneration,
				map[string]int32{"status.updatedReplicas": s.UpdatedReplicas})
			errs = nonNegative(errs, "status.unavailableReplicas", s.UnavailableReplicas)
			return nonNegative(errs, "status.collisionCount", s.CollisionCount)
		},
	},
}

func (DeploymentSpec) objectKind() *ObjectKind[DeploymentSpec, DeploymentStatus] {
	return deploymentKind
}

// selector is the workload's pod selector, which may not change.
func (s DeploymentSpec) selector() LabelSelector { return s.Selector }

// DeploymentAggregate is the Deployment in the log: streams
// "deployment/NAMESPACE/NAME", of the model's events and
// DeploymentStatusRecorded.
var DeploymentAggregate = defineObjectAggregate[DeploymentSpec, DeploymentStatus]("deployment",
	eventOf[DeploymentStatusRecorded](1))

// EvolveDeployment folds one event into the Deployment; it never mutates
// d.
func EvolveDeployment(d Deployment, e Event) Deployment {
	if out, ok := evolveObject(d, e); ok {
		return out
	}
	d.Version++
	if e, ok := e.(DeploymentStatusRecorded); ok {
		d.Status = deepCopy(e.Status)
		if e.Revision != "" {
			d.Annotations = cloneStrings(d.Annotations)
			if d.Annotations == nil {
				d.Annotations = map[string]string{}
			}
			d.Annotations[RevisionAnnotation] = e.Revision
		}
	}
	return d
}

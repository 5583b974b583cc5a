package domain

import (
	"fmt"
)

// StatefulSet is the StatefulSet aggregate (apps/v1): Replicas pods with
// stable names, NAME-0 to NAME-(Replicas-1), made from Template. The
// statefulset reconciler makes them in order (or all at once), removes
// them from the highest ordinal down and rolls a new template through
// them from the highest ordinal down to the partition. It is a kind on
// the object model (see Object): a change of its spec is a new
// generation; it owns its pods, which follow its deletion as the
// delete's propagation says.
type StatefulSet = Object[StatefulSetSpec, StatefulSetStatus]

// StatefulSetSpec is what a StatefulSet asks for.
type StatefulSetSpec struct {
	Replicas int32         `json:"replicas"`
	Selector LabelSelector `json:"selector"`
	Template PodTemplate   `json:"template"`
	// ServiceName is the headless service that gives the pods their
	// network identity; herd keeps it for clients.
	ServiceName string `json:"serviceName,omitempty"`
	// PodManagementPolicy is StatefulSetOrderedReady (one pod at a time,
	// each after the lower ordinals are Running and Ready) or
	// StatefulSetParallel.
	PodManagementPolicy string                    `json:"podManagementPolicy"`
	UpdateStrategy      StatefulSetUpdateStrategy `json:"updateStrategy"`
	// MinReadySeconds is how long a pod must have been ready to count as
	// available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is how many old revisions are kept
	// (apps/v1's default is 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// StatefulSetUpdateStrategy says how a new template reaches the pods:
// StatefulSetRollingUpdate replaces them from the highest ordinal down,
// never those below Partition, with at most MaxUnavailable of the
// replicas unavailable at a time (at least one);
// StatefulSetOnDelete only when a pod is deleted.
type StatefulSetUpdateStrategy struct {
	Type      string `json:"type"`
	Partition *int32 `json:"partition,omitempty"`
	// MaxUnavailable is a number or a percentage of the replicas (rounded
	// up); nil, in a StatefulSet recorded before herd kept it, is 1.
	MaxUnavailable *IntOrPercent `json:"maxUnavailable,omitempty"`
}

// StatefulSetStatus is what the reconciler last saw of the StatefulSet's
// pods.
type StatefulSetStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	Replicas           int32 `json:"replicas"`
	ReadyReplicas      int32 `json:"readyReplicas,omitempty"`
	CurrentReplicas    int32 `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int32 `json:"updatedReplicas,omitempty"`
	AvailableReplicas  int32 `json:"availableReplicas,omitempty"`
	// CurrentRevision is the revision the pods below the partition were
	// made from; UpdateRevision the template's now. They are the same
	// once a rollout is done.
	CurrentRevision string `json:"currentRevision,omitempty"`
	UpdateRevision  string `json:"updateRevision,omitempty"`
}

// The pod management policies and update strategies, as apps/v1 spells
// them.
const (
	StatefulSetOrderedReady  = "OrderedReady"
	StatefulSetParallel      = "Parallel"
	StatefulSetRollingUpdate = "RollingUpdate"
	StatefulSetOnDelete      = "OnDelete"
)

// LabelStatefulSetPodName is the label every pod of a StatefulSet carries
// with its own name, as Kubernetes' controller sets it.
const LabelStatefulSetPodName = "statefulset.kubernetes.io/pod-name"

// The StatefulSet's events.
type (
	// StatefulSetCreated records a StatefulSet's creation.
	StatefulSetCreated = ObjectCreated[StatefulSetSpec, StatefulSetStatus]
	// StatefulSetChanged records a new spec, with the labels and
	// annotations beside it.
	StatefulSetChanged = ObjectUpdated[StatefulSetSpec, StatefulSetStatus]
	// StatefulSetMetadataChanged records new labels or annotations alone:
	// the spec and generation stay as they were.
	StatefulSetMetadataChanged = ObjectMetadataChanged[StatefulSetSpec, StatefulSetStatus]
	// StatefulSetStatusRecorded records what the reconciler saw of the
	// pods.
	StatefulSetStatusRecorded = ObjectStatusRecorded[StatefulSetSpec, StatefulSetStatus]
	// StatefulSetDeletionRequested records a deletion in the foreground:
	// the StatefulSet stays, being deleted, until its pods are gone.
	StatefulSetDeletionRequested = ObjectDeletionRequested[StatefulSetSpec, StatefulSetStatus]
	// StatefulSetOwnersChanged records the StatefulSet's new owner
	// references: given by an update, or one taken off when its owner
	// was deleted with its dependents orphaned.
	StatefulSetOwnersChanged = ObjectOwnersChanged[StatefulSetSpec, StatefulSetStatus]
	// StatefulSetDeleted records a StatefulSet's deletion; Orphan says
	// its pods stay, their reference to it taken off.
	StatefulSetDeleted = ObjectDeleted[StatefulSetSpec, StatefulSetStatus]
)

// statefulSetKind is what is the StatefulSet's own on the object model.
var statefulSetKind = &ObjectKind[StatefulSetSpec, StatefulSetStatus]{
	Kind: "StatefulSet", Resource: "statefulsets.apps", APIVersion: "apps/v1",
	Created: "StatefulSetCreated", Updated: "StatefulSetChanged", Deleted: "StatefulSetDeleted",
	MetadataChanged: "StatefulSetMetadataChanged",
	StatusRecorded:  "StatefulSetStatusRecorded", DeletionRequested: "StatefulSetDeletionRequested",
	OwnersChanged:  "StatefulSetOwnersChanged",
	OwnsDependents: true, UpdateReplacesOwners: true,
	Layout: workloadLayout,
	Strategy: Strategy[StatefulSetSpec, StatefulSetStatus]{
		PrepareForCreate:          func(_ *ObjectMeta, s *StatefulSetSpec) { DefaultStatefulSetSpec(s) },
		Validate:                  func(_ ObjectMeta, s StatefulSetSpec) []FieldError { return statefulSetSpecProblems(s) },
		ValidateUpdate:            statefulSetUpdateProblems,
		SpecChangeBumpsGeneration: true,
		ValidateStatus: func(_ StatefulSetSpec, _, s StatefulSetStatus) []FieldError {
			return replicaCountProblems(s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.ObservedGeneration,
				map[string]int32{"status.currentReplicas": s.CurrentReplicas, "status.updatedReplicas": s.UpdatedReplicas})
		},
	},
}

func (StatefulSetSpec) objectKind() *ObjectKind[StatefulSetSpec, StatefulSetStatus] {
	return statefulSetKind
}

// StatefulSetAggregate is the StatefulSet in the log: streams
// "statefulset/NAMESPACE/NAME", of the model's events. They fold as the
// model's do (EvolveObject).
var StatefulSetAggregate = defineObjectAggregate[StatefulSetSpec, StatefulSetStatus]("statefulset")

// DefaultStatefulSetSpec sets apps/v1's defaults on what a create (or,
// read from the API, an update) left out: OrderedReady, a rolling update
// from partition 0 with one replica unavailable at a time, and ten old
// revisions kept.
func DefaultStatefulSetSpec(s *StatefulSetSpec) {
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = StatefulSetOrderedReady
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = StatefulSetRollingUpdate
	}
	if s.UpdateStrategy.Type == StatefulSetRollingUpdate && s.UpdateStrategy.Partition == nil {
		s.UpdateStrategy.Partition = new(int32)
	}
	if s.UpdateStrategy.Type == StatefulSetRollingUpdate && s.UpdateStrategy.MaxUnavailable == nil {
		s.UpdateStrategy.MaxUnavailable = Ints(1)
	}
	if s.RevisionHistoryLimit == nil {
		limit := int32(10)
		s.RevisionHistoryLimit = &limit
	}
}

// statefulSetSpecProblems checks a StatefulSet's spec as kube-apiserver's
// ValidateStatefulSetSpec does.
func statefulSetSpecProblems(s StatefulSetSpec) []FieldError {
	var errs []FieldError
	switch s.PodManagementPolicy {
	case StatefulSetOrderedReady, StatefulSetParallel:
	case "":
		errs = append(errs, FieldError{Field: "spec.podManagementPolicy", Reason: "Required value"})
	default:
		errs = append(errs, FieldError{Field: "spec.podManagementPolicy",
			Reason: fmt.Sprintf(`Unsupported value: %q: supported values: "OrderedReady", "Parallel"`, s.PodManagementPolicy)})
	}
	switch s.UpdateStrategy.Type {
	case StatefulSetRollingUpdate:
		if p := s.UpdateStrategy.Partition; p != nil {
			errs = nonNegative(errs, "spec.updateStrategy.rollingUpdate.partition", *p)
		}
		const maxUnavailable = "spec.updateStrategy.rollingUpdate.maxUnavailable"
		if m := s.UpdateStrategy.MaxUnavailable; m != nil && m.Value == 0 {
			errs = append(errs, FieldError{Field: maxUnavailable, Value: m.String(), Reason: "cannot be 0"})
		} else {
			errs = append(errs, m.problems(maxUnavailable)...)
		}
	case StatefulSetOnDelete:
		if s.UpdateStrategy.Partition != nil || s.UpdateStrategy.MaxUnavailable != nil {
			errs = append(errs, FieldError{Field: "spec.updateStrategy.rollingUpdate", Reason: "Invalid value: only allowed for updateStrategy 'RollingUpdate'"})
		}
	case "":
		errs = append(errs, FieldError{Field: "spec.updateStrategy", Reason: "Required value"})
	default:
		errs = append(errs, FieldError{Field: "spec.updateStrategy.type",
			Reason: fmt.Sprintf(`Unsupported value: %q: supported values: "OnDelete", "RollingUpdate"`, s.UpdateStrategy.Type)})
	}
	errs = nonNegative(errs, "spec.replicas", s.Replicas)
	errs = nonNegative(errs, "spec.minReadySeconds", s.MinReadySeconds)
	if l := s.RevisionHistoryLimit; l != nil {
		errs = nonNegative(errs, "spec.revisionHistoryLimit", *l)
	}
	if s.Selector.Empty() {
		errs = append(errs, FieldError{Field: "spec.selector", Reason: "Invalid value: empty selector is invalid for statefulset"})
		errs = append(errs, templateProblems(s.Template)...)
	} else {
		errs = append(errs, selectedTemplateProblems(s.Selector, s.Template)...)
	}
	if p := s.Template.Spec.RestartPolicy; p != "" && p != RestartAlways {
		errs = append(errs, FieldError{Field: "spec.template.spec.restartPolicy", Value: string(p), Reason: `Unsupported value: supported values: "Always"`})
	}
	return errs
}

// statefulSetUpdateProblems is kube-apiserver's ValidateStatefulSetUpdate:
// only the replicas, the template, the update strategy, the revision
// history limit and minReadySeconds may change.
func statefulSetUpdateProblems(_ ObjectMeta, old StatefulSetSpec, _ ObjectMeta, next StatefulSetSpec) []FieldError {
	o, n := deepCopy(old), deepCopy(next)
	o.Replicas, o.Template, o.UpdateStrategy, o.RevisionHistoryLimit, o.MinReadySeconds =
		n.Replicas, n.Template, n.UpdateStrategy, n.RevisionHistoryLimit, n.MinReadySeconds
	if semanticEqual(o, n) {
		return nil
	}
	return []FieldError{{Field: "spec", Reason: "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"}}
}

// The StatefulSet's commands are the object model's.
type (
	// StatefulSetCommand is a command on one StatefulSet.
	StatefulSetCommand = ObjectCommand[StatefulSetSpec, StatefulSetStatus]
	// CreateStatefulSet creates a StatefulSet, as kubectl create -f does;
	// what it leaves out takes apps/v1's defaults.
	CreateStatefulSet = Create[StatefulSetSpec, StatefulSetStatus]
	// UpdateStatefulSet makes a StatefulSet's labels, annotations and spec
	// those given; only the replicas, template, update strategy, revision
	// history limit and minReadySeconds may change (apps/v1).
	UpdateStatefulSet = Update[StatefulSetSpec, StatefulSetStatus]
	// ScaleStatefulSet sets how many pods a StatefulSet keeps.
	ScaleStatefulSet = Scale[StatefulSetSpec, StatefulSetStatus]
	// RecordStatefulSetStatus records what the reconciler (or a client of
	// the status subresource) saw of the pods.
	RecordStatefulSetStatus = RecordStatus[StatefulSetSpec, StatefulSetStatus]
	// DeleteStatefulSet deletes a StatefulSet, its pods following as
	// Propagation says.
	DeleteStatefulSet = Delete[StatefulSetSpec, StatefulSetStatus]
)

func (s StatefulSetSpec) withReplicas(n int32) StatefulSetSpec { s.Replicas = n; return s }

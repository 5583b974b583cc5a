package domain

// ReplicaSet is the ReplicaSet aggregate (apps/v1): keep Replicas pods
// that match Selector running, made from Template. The replicaset
// reconciler acts on it. It is a kind on the object model (see Object):
// a change of its spec is a new generation, which
// Status.ObservedGeneration says the reconciler last acted on; it owns
// its pods (Owns, OwnerReference), which follow its deletion as the
// delete's propagation says, and its tombstone keeps its UID and whether
// they were orphaned.
type ReplicaSet = Object[ReplicaSetSpec, ReplicaSetStatus]

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

// ReplicaSetStream is the name of the log stream of a ReplicaSet.
func ReplicaSetStream(namespace, name string) string {
	return ReplicaSetAggregate.Stream(namespace + "/" + name)
}

// The ReplicaSet's events, under the names they have always had in the
// log.
type (
	// ReplicaSetCreated records a ReplicaSet's creation.
	ReplicaSetCreated = ObjectCreated[ReplicaSetSpec, ReplicaSetStatus]
	// ReplicaSetChanged records a new spec, with the labels and
	// annotations beside it; Generation is the ReplicaSet's generation afterwards.
	ReplicaSetChanged = ObjectUpdated[ReplicaSetSpec, ReplicaSetStatus]
	// ReplicaSetMetadataChanged records new labels or annotations alone:
	// the spec and generation stay as they were.
	ReplicaSetMetadataChanged = ObjectMetadataChanged[ReplicaSetSpec, ReplicaSetStatus]
	// ReplicaSetStatusRecorded records what the reconciler saw of the
	// ReplicaSet's pods.
	ReplicaSetStatusRecorded = ObjectStatusRecorded[ReplicaSetSpec, ReplicaSetStatus]
	// ReplicaSetDeleted records a ReplicaSet's deletion; Orphan says its
	// pods stay, their reference to it taken off.
	ReplicaSetDeleted = ObjectDeleted[ReplicaSetSpec, ReplicaSetStatus]
	// ReplicaSetDeletionRequested records a deletion in the foreground:
	// the ReplicaSet stays, being deleted, until its pods are gone.
	ReplicaSetDeletionRequested = ObjectDeletionRequested[ReplicaSetSpec, ReplicaSetStatus]
	// ReplicaSetOwnersChanged records the ReplicaSet's new owner
	// references: one taken off when its owner was deleted with its
	// dependents orphaned, or those a client's update set.
	ReplicaSetOwnersChanged = ObjectOwnersChanged[ReplicaSetSpec, ReplicaSetStatus]
)

// replicaSetKind is what is the ReplicaSet's own on the object model.
var replicaSetKind = &ObjectKind[ReplicaSetSpec, ReplicaSetStatus]{
	Kind: "ReplicaSet", Resource: "replicasets.apps", APIVersion: "apps/v1",
	Created: "ReplicaSetCreated", Updated: "ReplicaSetChanged", Deleted: "ReplicaSetDeleted",
	MetadataChanged: "ReplicaSetMetadataChanged",
	StatusRecorded:  "ReplicaSetStatusRecorded", OwnersChanged: "ReplicaSetOwnersChanged",
	DeletionRequested: "ReplicaSetDeletionRequested",
	OwnsDependents:    true, UpdateReplacesOwners: true,
	Layout: workloadLayout,
	Strategy: Strategy[ReplicaSetSpec, ReplicaSetStatus]{
		Validate:                  func(_ ObjectMeta, s ReplicaSetSpec) []FieldError { return replicaSetSpecProblems(s) },
		ValidateUpdate:            selectorImmutable[ReplicaSetSpec],
		SpecChangeBumpsGeneration: true,
		ValidateStatus: func(_ ReplicaSetSpec, _, s ReplicaSetStatus) []FieldError {
			return replicaCountProblems(s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.ObservedGeneration,
				map[string]int32{"status.fullyLabeledReplicas": s.FullyLabeledReplicas})
		},
	},
}

func (ReplicaSetSpec) objectKind() *ObjectKind[ReplicaSetSpec, ReplicaSetStatus] {
	return replicaSetKind
}

// selector is the workload's pod selector, which may not change.
func (s ReplicaSetSpec) selector() LabelSelector { return s.Selector }

// ReplicaSetAggregate is the ReplicaSet in the log: streams
// "replicaset/NAMESPACE/NAME".
var ReplicaSetAggregate = defineNamespacedAggregate("replicaset",
	eventOf[ReplicaSetCreated](1),
	eventOf[ReplicaSetChanged](1),
	eventOf[ReplicaSetMetadataChanged](1),
	eventOf[ReplicaSetStatusRecorded](1),
	eventOf[ReplicaSetDeleted](1),
	eventOf[ReplicaSetDeletionRequested](1),
	eventOf[ReplicaSetOwnersChanged](1),
)

// EvolveReplicaSet folds one event into the ReplicaSet; it never mutates
// rs. Every event of the ReplicaSet is the object model's.
func EvolveReplicaSet(rs ReplicaSet, e Event) ReplicaSet {
	out, ok := evolveObject(rs, e)
	if !ok {
		out.Version++
	}
	return out
}

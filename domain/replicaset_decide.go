package domain

// The ReplicaSet's commands: the object model's.
type (
	// ReplicaSetCommand is a command on one ReplicaSet.
	ReplicaSetCommand = ObjectCommand[ReplicaSetSpec, ReplicaSetStatus]
	// CreateReplicaSet creates a ReplicaSet, as kubectl create -f does.
	CreateReplicaSet = Create[ReplicaSetSpec, ReplicaSetStatus]
	// UpdateReplicaSet makes a ReplicaSet's labels, annotations, owners
	// and spec those given, conditional on a resourceVersion in a
	// Precondition. The selector may not change (apps/v1). A change of
	// the spec is a new generation; one of the owners is recorded in an
	// event of its own, as a client's update of metadata.ownerReferences.
	UpdateReplicaSet = Update[ReplicaSetSpec, ReplicaSetStatus]
	// ScaleReplicaSet sets how many pods a ReplicaSet keeps.
	ScaleReplicaSet = Scale[ReplicaSetSpec, ReplicaSetStatus]
	// RecordReplicaSetStatus records what the reconciler (or a client of
	// the status subresource) saw of the ReplicaSet's pods.
	RecordReplicaSetStatus = RecordStatus[ReplicaSetSpec, ReplicaSetStatus]
	// DeleteReplicaSet deletes a ReplicaSet, its pods following as
	// Propagation says: deleted after it by the garbage collector
	// (Background, the default), before it (Foreground), or left without
	// it (Orphan).
	DeleteReplicaSet = Delete[ReplicaSetSpec, ReplicaSetStatus]
	// FinishReplicaSetDeletion deletes a ReplicaSet being deleted in the
	// foreground, once its pods are gone.
	FinishReplicaSetDeletion = FinishDeletion[ReplicaSetSpec, ReplicaSetStatus]
	// ReleaseReplicaSet takes off the ReplicaSet's reference to the owner
	// of UID.
	ReleaseReplicaSet = Release[ReplicaSetSpec, ReplicaSetStatus]
	// AdoptReplicaSet makes a Deployment the controller of a ReplicaSet
	// that has none and that its selector matches.
	AdoptReplicaSet = Adopt[ReplicaSetSpec, ReplicaSetStatus]
)

// DecideReplicaSet returns the events cmd causes on rs at now
// (DecideObject).
var DecideReplicaSet = DecideObject[ReplicaSet]

func (s ReplicaSetSpec) withReplicas(n int32) ReplicaSetSpec {
	s.Replicas = n
	return s
}

// replicaSetSpecProblems checks a ReplicaSet's spec as kube-apiserver
// does: replicas not negative, a selector that is not empty and that the
// template's labels satisfy, and a template that makes valid pods.
func replicaSetSpecProblems(s ReplicaSetSpec) []FieldError {
	errs := nonNegative(nil, "spec.replicas", s.Replicas)
	errs = nonNegative(errs, "spec.minReadySeconds", s.MinReadySeconds)
	return append(errs, selectedTemplateProblems(s.Selector, s.Template)...)
}

// selectorImmutable is the update strategy of a workload whose selector
// may not change (apps/v1).
func selectorImmutable[S interface{ selector() LabelSelector }](_ ObjectMeta, old S, _ ObjectMeta, next S) []FieldError {
	if semanticEqual(old.selector(), next.selector()) {
		return nil
	}
	return []FieldError{{Field: "spec.selector", Reason: "Invalid value: field is immutable"}}
}

// scaleProblem refuses a negative scale as kube-apiserver refuses it,
// naming the Scale.
func scaleProblem(name string, replicas int32) error {
	if replicas >= 0 {
		return nil
	}
	return invalid("Scale", name, nonNegative(nil, "spec.replicas", replicas))
}

package domain

import (
	"strconv"
	"time"
)

// The Deployment's commands: the object model's, and its own status.
type (
	// DeploymentCommand is a command on one Deployment.
	DeploymentCommand = ObjectCommand[DeploymentSpec, DeploymentStatus]
	// CreateDeployment creates a Deployment, as kubectl create does.
	CreateDeployment = Create[DeploymentSpec, DeploymentStatus]
	// UpdateDeployment makes a Deployment's labels, annotations and spec
	// those given, conditional on a resourceVersion in a Precondition.
	// The selector may not change (apps/v1). A change of the spec is a
	// new generation; one of the template starts a rollout.
	UpdateDeployment = Update[DeploymentSpec, DeploymentStatus]
	// ScaleDeployment sets how many pods a Deployment keeps.
	ScaleDeployment = Scale[DeploymentSpec, DeploymentStatus]
	// DeleteDeployment deletes a Deployment, its ReplicaSets (and their
	// pods) following as Propagation says.
	DeleteDeployment = Delete[DeploymentSpec, DeploymentStatus]
	// FinishDeploymentDeletion deletes a Deployment being deleted in the
	// foreground, once its ReplicaSets are gone.
	FinishDeploymentDeletion = FinishDeletion[DeploymentSpec, DeploymentStatus]
)

// DecideDeployment returns the events cmd causes on d at now
// (DecideObject).
var DecideDeployment = DecideObject[Deployment]

func (s DeploymentSpec) withReplicas(n int32) DeploymentSpec {
	s.Replicas = n
	return s
}

// deploymentSpecProblems checks a Deployment's spec as kube-apiserver
// does: what a ReplicaSet's spec must be, a known strategy whose surge
// and unavailability are not both zero, and a progress deadline longer
// than minReadySeconds.
func deploymentSpecProblems(s DeploymentSpec) []FieldError {
	errs := replicaSetSpecProblems(ReplicaSetSpec{Replicas: s.Replicas, Selector: s.Selector, Template: s.Template, MinReadySeconds: s.MinReadySeconds})
	errs = nonNegative(errs, "spec.revisionHistoryLimit", s.RevisionHistoryLimit)
	if s.ProgressDeadlineSeconds <= s.MinReadySeconds {
		errs = append(errs, FieldError{Field: "spec.progressDeadlineSeconds", Value: strconv.Itoa(int(s.ProgressDeadlineSeconds)), Reason: "must be greater than minReadySeconds"})
	}
	st := s.Strategy
	switch st.Type {
	case RecreateStrategy:
		if st.MaxSurge != nil || st.MaxUnavailable != nil {
			errs = append(errs, FieldError{Field: "spec.strategy.rollingUpdate", Reason: "may not be specified when strategy `type` is 'Recreate'"})
		}
	case RollingUpdateStrategy:
		errs = append(errs, st.MaxSurge.problems("spec.strategy.rollingUpdate.maxSurge")...)
		errs = append(errs, st.MaxUnavailable.problems("spec.strategy.rollingUpdate.maxUnavailable")...)
		if st.MaxSurge.Count(100, true) == 0 && st.MaxUnavailable.Count(100, true) == 0 {
			errs = append(errs, FieldError{Field: "spec.strategy.rollingUpdate.maxUnavailable", Value: "0", Reason: "may not be 0 when `maxSurge` is 0"})
		}
	default:
		errs = append(errs, FieldError{Field: "spec.strategy.type", Value: st.Type, Reason: `supported values: "Recreate", "RollingUpdate"`})
	}
	return errs
}

// RecordDeploymentStatus records what the reconciler saw of the
// Deployment's ReplicaSets and, when Revision is not empty, the revision
// it runs (its deployment.kubernetes.io/revision annotation). The same
// again records nothing.
type RecordDeploymentStatus struct {
	Status   DeploymentStatus
	Revision string
}

func (c RecordDeploymentStatus) decideObject(s subject[DeploymentCommand], now time.Time) ([]Event, error) {
	d := modelOf(s)
	if err := requireObject(d); err != nil {
		return nil, err
	}
	revision := c.Revision
	if revision == d.Annotations[RevisionAnnotation] {
		revision = ""
	}
	same := semanticEqual(c.Status, d.Status)
	if revision == "" && same {
		return nil, nil
	}
	if !same {
		if err := checkStatus(d, c.Status); err != nil {
			return nil, err
		}
	}
	return []Event{DeploymentStatusRecorded{Status: deepCopy(c.Status), Revision: revision, At: now}}, nil
}

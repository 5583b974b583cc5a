package httpapi

import (
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// replicaSetKind serves ReplicaSets (apps/v1), as kubectl and client-go
// write them: the spec from create, replace and patch (the selector
// fixed once created), the status from the controller that keeps the
// pods, and the number of replicas from kubectl scale through the scale
// subresource. An update replaces the owners, as in Kubernetes.
func (s *Server) replicaSetKind() *kind {
	return scaled(s, modelKind[domain.ReplicaSet, domain.ReplicaSetSpec, domain.ReplicaSetStatus, appsv1.ReplicaSet, *appsv1.ReplicaSet]{
		kind:      workloadKind(appsv1.SchemeGroupVersion, "ReplicaSet", "replicasets", "rs"),
		aggregate: domain.ReplicaSetAggregate, fold: projections.FoldReplicaSet, view: s.ReplicaSetView, exec: s.ReplicaSets,
		toAPI: conversions.ReplicaSetToAPI, fromAPI: conversions.ReplicaSetFromAPI,
		status: func(in *appsv1.ReplicaSet) domain.ReplicaSetStatus {
			return conversions.ReplicaSetStatusFromAPI(in.Status)
		},
		rows: replicaSetRows,
	}, conversions.ReplicaSetScaleToAPI)
}

// replicaSetRows are the columns kubectl get replicasets prints: NAME,
// DESIRED, CURRENT, READY, AGE, and with -o wide CONTAINERS, IMAGES and
// SELECTOR.
func replicaSetRows(s *Server, rss []appsv1.ReplicaSet, _ *http.Request) tableRows {
	return workloadRows(s, rss, "ReplicaSet", "The label selector of the ReplicaSet's pods", []metav1.TableColumnDefinition{
		{Name: "Desired", Type: "integer", Description: "Number of desired pods"},
		{Name: "Current", Type: "integer", Description: "Number of pods the ReplicaSet has"},
		{Name: "Ready", Type: "integer", Description: "Number of ready pods"},
	}, func(rs *appsv1.ReplicaSet, _ time.Time) workloadRow {
		return workloadRow{&rs.ObjectMeta, &rs.Spec.Template.Spec, rs.Spec.Selector,
			[]any{int64(ptr.Deref(rs.Spec.Replicas, 0)), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas)}}
	})
}

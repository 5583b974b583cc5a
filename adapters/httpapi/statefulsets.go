package httpapi

import (
	"fmt"
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// statefulSetKind serves StatefulSets (apps/v1), as kubectl and client-go
// write them: the spec from create, replace and patch (only the
// replicas, template, update strategy, revision history limit and
// minReadySeconds changing once created), the status from the
// reconciler that keeps the pods, and the number of replicas from
// kubectl scale through the scale subresource. An update replaces the
// owners, as in Kubernetes.
func (s *Server) statefulSetKind() *kind {
	return scaled(s, modelKind[domain.StatefulSet, domain.StatefulSetSpec, domain.StatefulSetStatus, appsv1.StatefulSet, *appsv1.StatefulSet]{
		kind:      workloadKind(appsv1.SchemeGroupVersion, "StatefulSet", "statefulsets", "sts"),
		aggregate: domain.StatefulSetAggregate, fold: projections.FoldStatefulSet, view: s.StatefulSetView, exec: s.StatefulSets,
		toAPI: conversions.StatefulSetToAPI, fromAPI: conversions.StatefulSetFromAPI,
		status: func(in *appsv1.StatefulSet) domain.StatefulSetStatus {
			return conversions.StatefulSetStatusFromAPI(in.Status)
		},
		rows: statefulSetRows,
	}, conversions.StatefulSetScaleToAPI)
}

// statefulSetRows are the columns kubectl get statefulsets prints: NAME,
// READY (ready of desired), AGE, and with -o wide CONTAINERS and IMAGES,
// in Kubernetes' words (its printStatefulSet).
func statefulSetRows(s *Server, sts []appsv1.StatefulSet, _ *http.Request) tableRows {
	return workloadRows(s, sts, "StatefulSet", "", []metav1.TableColumnDefinition{
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
	}, func(st *appsv1.StatefulSet, _ time.Time) workloadRow {
		return workloadRow{&st.ObjectMeta, &st.Spec.Template.Spec, st.Spec.Selector,
			[]any{fmt.Sprintf("%d/%d", st.Status.ReadyReplicas, ptr.Deref(st.Spec.Replicas, 0))}}
	})
}

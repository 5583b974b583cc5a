package httpapi

import (
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// daemonSetKind serves DaemonSets (apps/v1), as kubectl and client-go
// write them: the spec from create, replace and patch (the selector
// fixed once created), and the status from the controller that keeps
// one pod on each node. kubectl drain reads a pod's DaemonSet here to
// leave its pods alone with --ignore-daemonsets. An update replaces the
// owners, as in Kubernetes.
func (s *Server) daemonSetKind() *kind {
	return modelKind[domain.DaemonSet, domain.DaemonSetSpec, domain.DaemonSetStatus, appsv1.DaemonSet, *appsv1.DaemonSet]{
		kind:      workloadKind(appsv1.SchemeGroupVersion, "DaemonSet", "daemonsets", "ds"),
		aggregate: domain.DaemonSetAggregate, fold: projections.FoldDaemonSet, view: s.DaemonSetView, exec: s.DaemonSets,
		toAPI: conversions.DaemonSetToAPI, fromAPI: conversions.DaemonSetFromAPI,
		status: func(in *appsv1.DaemonSet) domain.DaemonSetStatus {
			return conversions.DaemonSetStatusFromAPI(in.Status)
		},
		rows: daemonSetRows,
	}.describe(s)
}

// daemonSetRows are the columns kubectl get daemonsets prints: NAME,
// DESIRED, CURRENT, READY, UP-TO-DATE, AVAILABLE, NODE SELECTOR, AGE,
// and with -o wide CONTAINERS, IMAGES and SELECTOR.
func daemonSetRows(s *Server, dss []appsv1.DaemonSet, _ *http.Request) tableRows {
	return workloadRows(s, dss, "DaemonSet", "The label selector of the DaemonSet's pods", []metav1.TableColumnDefinition{
		{Name: "Desired", Type: "integer", Description: "The number of nodes that should be running the daemon pod"},
		{Name: "Current", Type: "integer", Description: "The number of nodes running at least one daemon pod that are supposed to"},
		{Name: "Ready", Type: "integer", Description: "The number of nodes whose daemon pod is ready"},
		{Name: "Up-to-date", Type: "integer", Description: "The number of nodes running the updated daemon pod"},
		{Name: "Available", Type: "integer", Description: "The number of nodes whose daemon pod has been ready for minReadySeconds"},
		column("Node Selector", "The node selector of the template"),
	}, func(ds *appsv1.DaemonSet, _ time.Time) workloadRow {
		st := ds.Status
		return workloadRow{&ds.ObjectMeta, &ds.Spec.Template.Spec, ds.Spec.Selector, []any{
			int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
			int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector)}}
	})
}

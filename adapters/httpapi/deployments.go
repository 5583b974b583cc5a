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

// deploymentKind serves Deployments (apps/v1), as kubectl and client-go
// write them: the spec from create, replace and patch (kubectl set image,
// rollout pause, resume, restart and undo are patches), the status from
// the reconciler that rolls them out, and the number of replicas from
// kubectl scale through the scale subresource.
func (s *Server) deploymentKind() *kind {
	return scaled(s, modelKind[domain.Deployment, domain.DeploymentSpec, domain.DeploymentStatus, appsv1.Deployment, *appsv1.Deployment]{
		kind:      workloadKind(appsv1.SchemeGroupVersion, "Deployment", "deployments", "deploy"),
		aggregate: domain.DeploymentAggregate, fold: projections.FoldDeployment, view: s.DeploymentView, exec: s.Deployments,
		toAPI: conversions.DeploymentToAPI, fromAPI: conversions.DeploymentFromAPI,
		status: func(in *appsv1.Deployment) domain.DeploymentStatus {
			return conversions.DeploymentStatusFromAPI(in.Status)
		},
		recordStatus: func(st domain.DeploymentStatus) domain.DeploymentCommand {
			return domain.RecordDeploymentStatus{Status: st}
		},
		rows: deploymentRows,
	}, conversions.DeploymentScaleToAPI)
}

// deploymentRows are the columns kubectl get deployments prints: NAME,
// READY, UP-TO-DATE, AVAILABLE, AGE, and with -o wide CONTAINERS, IMAGES
// and SELECTOR.
func deploymentRows(s *Server, ds []appsv1.Deployment, _ *http.Request) tableRows {
	return workloadRows(s, ds, "Deployment", "The label selector of the Deployment's pods", []metav1.TableColumnDefinition{
		{Name: "Ready", Type: "string", Description: "Number of the pods that are ready, of those the Deployment wants"},
		{Name: "Up-to-date", Type: "integer", Description: "Number of pods made from the Deployment's current template"},
		{Name: "Available", Type: "integer", Description: "Number of pods available to its users"},
	}, func(d *appsv1.Deployment, _ time.Time) workloadRow {
		return workloadRow{&d.ObjectMeta, &d.Spec.Template.Spec, d.Spec.Selector, []any{
			fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, ptr.Deref(d.Spec.Replicas, 0)), int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas)}}
	})
}

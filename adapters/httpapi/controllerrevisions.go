package httpapi

import (
	"net/http"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// controllerRevisionKind serves ControllerRevisions (apps/v1): those the
// statefulset reconciler keeps of each StatefulSet's templates, which
// kubectl rollout history lists and rollout undo patches back, and any a
// client writes. Their data never changes once created; their labels,
// annotations, owners and revision number may, as kube-apiserver allows.
func (s *Server) controllerRevisionKind() *kind {
	return modelKind[domain.ControllerRevision, domain.ControllerRevisionSpec, domain.NoStatus,
		appsv1.ControllerRevision, *appsv1.ControllerRevision]{
		kind: &kind{
			gv: appsv1.SchemeGroupVersion, resource: "controllerrevisions", singular: "controllerrevision", name: "ControllerRevision",
			namespaced: true,
		},
		aggregate: domain.ControllerRevisionAggregate, fold: projections.FoldControllerRevision,
		view: s.ControllerRevisionView, exec: s.ControllerRevisions,
		toAPI: conversions.ControllerRevisionToAPI, fromAPI: conversions.ControllerRevisionFromAPI,
		rows: controllerRevisionRows,
	}.describe(s)
}

// controllerRevisionRows are the columns kubectl get controllerrevisions
// prints: NAME, CONTROLLER (kind.group/name of the controller owner),
// REVISION and AGE, in Kubernetes' words (its printControllerRevision).
func controllerRevisionRows(s *Server, revs []appsv1.ControllerRevision, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{
		nameColumn("ControllerRevision"),
		{Name: "Controller", Type: "string", Description: "Controller of the object"},
		{Name: "Revision", Type: "number", Description: "Revision number of the state the object represents"},
		ageColumn("the ControllerRevision was created"),
	}}
	now := s.Clock.Now()
	for _, r := range revs {
		controller := "<none>"
		if ref := metav1.GetControllerOf(&r); ref != nil {
			gv, _ := schema.ParseGroupVersion(ref.APIVersion)
			controller = strings.ToLower(gv.WithKind(ref.Kind).GroupKind().String()) + "/" + ref.Name
		}
		t.cells = append(t.cells, []any{r.Name, controller, r.Revision, age(now, r.CreationTimestamp)})
	}
	return t
}

package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/google/uuid"
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
	o := &object[domain.ControllerRevision, domain.ControllerRevisionCommand, appsv1.ControllerRevision, *appsv1.ControllerRevision]{
		kind: &kind{
			gv: appsv1.SchemeGroupVersion, resource: "controllerrevisions", singular: "controllerrevision", name: "ControllerRevision",
			namespaced: true,
		},
		listing: &listing[domain.ControllerRevision]{
			aggregate: domain.ControllerRevisionAggregate, fold: projections.FoldControllerRevision,
			rows: s.ControllerRevisionView.Rows, hasView: s.ControllerRevisionView != nil,
			exists: domain.ControllerRevision.Exists,
			meta: func(r domain.ControllerRevision) (domain.Key, int64, map[string]string) {
				return r.Key(), r.ResourceVersion, r.Labels
			},
		},
		read: func(ctx context.Context, key domain.Key) (domain.ControllerRevision, error) {
			return s.ControllerRevisionView.Get(ctx, key.Namespace, key.Name)
		},
		exec:  s.ControllerRevisions,
		toAPI: conversions.ControllerRevisionToAPI,
		create: func(in *appsv1.ControllerRevision, key domain.Key) (domain.ControllerRevisionCommand, error) {
			c, err := conversions.ControllerRevisionFromAPI(*in)
			c.Meta.Namespace, c.Meta.Name, c.Meta.UID = key.Namespace, key.Name, uuid.NewString()
			return c, err
		},
		update: func(in *appsv1.ControllerRevision, rv int64) (domain.ControllerRevisionCommand, error) {
			c, err := conversions.ControllerRevisionFromAPI(*in)
			return ifVersion[domain.ControllerRevisionCommand](rv, domain.UpdateControllerRevision(c)), err
		},
		delete: func(d deletion) domain.ControllerRevisionCommand {
			return ifVersion[domain.ControllerRevisionCommand](d.resourceVersion, domain.DeleteControllerRevision{})
		},
		rows: controllerRevisionRows,
	}
	return o.describe(s)
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

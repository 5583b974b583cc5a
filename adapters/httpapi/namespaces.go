package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// namespaceKind serves namespaces (core/v1). A delete turns the
// namespace Terminating at once and answers with it as it now stands, as
// kube-apiserver does; herd then deletes what it holds, and the namespace
// goes. The system namespaces are refused with 403. A PUT or PATCH changes
// only the labels and annotations: spec and status are ignored, as
// kube-apiserver ignores them on an update.
func (s *Server) namespaceKind() *kind {
	o := &object[domain.Namespace, domain.NamespaceCommand, corev1.Namespace, *corev1.Namespace]{
		kind: &kind{
			gv: corev1.SchemeGroupVersion, resource: "namespaces", singular: "namespace", name: "Namespace",
			shortNames: []string{"ns"},
		},
		listing: &listing[domain.Namespace]{
			aggregate: domain.NamespaceAggregate, fold: projections.FoldNamespace,
			rows: s.NamespaceView.Rows, hasView: s.NamespaceView != nil,
			exists: domain.Namespace.Exists,
			meta: func(ns domain.Namespace) (domain.Key, int64, map[string]string) {
				return domain.Key{Name: ns.Name}, ns.ResourceVersion, conversions.NamespaceToAPI(ns).Labels
			},
			fields: func(ns domain.Namespace) fields.Fields {
				return fields.Set{"metadata.name": ns.Name, "status.phase": domain.NamespacePhase(ns)}
			},
			// kube-apiserver's field labels for namespaces.
			fieldLabels: []string{"metadata.name", "status.phase"},
		},
		read: func(ctx context.Context, key domain.Key) (domain.Namespace, error) {
			return s.NamespaceView.Get(ctx, key.Name)
		},
		exec:  s.Namespaces,
		toAPI: conversions.NamespaceToAPI,
		create: func(in *corev1.Namespace, _ domain.Key) (domain.NamespaceCommand, error) {
			return conversions.CreateNamespaceFromAPI(*in, uuid.NewString()), nil
		},
		update: func(in *corev1.Namespace, rv int64) (domain.NamespaceCommand, error) {
			return ifVersion[domain.NamespaceCommand](rv, conversions.UpdateNamespaceFromAPI(*in)), nil
		},
		delete: func(d deletion) domain.NamespaceCommand {
			return ifVersion[domain.NamespaceCommand](d.resourceVersion, domain.DeleteNamespace{})
		},
		rows: namespaceRows,
	}
	k := o.describe(s)
	k.deleteAnswersObject = true
	return k
}

// namespaceRows are the columns kubectl get namespaces prints: NAME,
// STATUS (Active or Terminating), AGE.
func namespaceRows(s *Server, nss []corev1.Namespace, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{nameColumn("namespace"), column("Status", "The phase of the namespace: Active or Terminating"), ageColumn("the namespace was created")}}
	now := s.Clock.Now()
	for _, ns := range nss {
		t.cells = append(t.cells, []any{ns.Name, string(ns.Status.Phase), age(now, ns.CreationTimestamp)})
	}
	return t
}

// acceptsObjects refuses the creation of a resource's object in a
// namespace that does not exist (404, `namespaces "x" not found`) or is
// being deleted (403), in kube-apiserver's words; nil when the namespace
// takes it.
func (s *Server) acceptsObjects(ctx context.Context, gr schema.GroupResource, namespace, name string) error {
	err := s.NamespaceView.AcceptsObjects(ctx, namespace)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, namespace)
	case errors.Is(err, domain.ErrForbidden):
		return forbiddenOf(gr, name, err)
	}
	return err
}

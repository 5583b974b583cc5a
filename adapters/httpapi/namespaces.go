package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
	"herd/projections/watch"
)

// listNamespaces lists or, with ?watch=true, watches namespaces, with
// label selectors and field selectors on metadata.name and status.phase.
func (s *Server) listNamespaces(w http.ResponseWriter, r *http.Request) {
	s.serveCollection(w, r, s.resource("namespaces"))
}

func (s *Server) getNamespace(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ns, err := s.NamespaceView.Get(r.Context(), name)
	if err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	s.writeNamespace(w, r, http.StatusOK, ns)
}

// createNamespace is POST /api/v1/namespaces, as `kubectl create
// namespace` sends it.
func (s *Server) createNamespace(w http.ResponseWriter, r *http.Request) {
	var in corev1.Namespace
	if err := refuseDryRun(r); err != nil {
		s.writeError(w, err, "Namespace", "")
		return
	}
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "Namespace", "")
		return
	}
	cmd := conversions.CreateNamespaceFromAPI(in, uuid.NewString())
	ns, err := s.Namespaces.Execute(r.Context(), domain.Key{Name: in.Name}, cmd)
	if err != nil {
		s.writeError(w, err, "Namespace", in.Name)
		return
	}
	s.writeNamespace(w, r, http.StatusCreated, ns)
}

// deleteNamespace is DELETE: the namespace turns Terminating at once and
// the answer is it as it now stands, 200, as kube-apiserver answers; herd
// then deletes what it holds, and the namespace goes. The system
// namespaces are refused with 403.
func (s *Server) deleteNamespace(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	rv, err := deletePrecondition(r)
	if err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	cmd := domain.DeleteNamespace{ResourceVersion: rv}
	ns, err := s.Namespaces.Execute(r.Context(), domain.Key{Name: name}, cmd)
	if errors.Is(err, domain.ErrForbidden) {
		err = apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, name,
			errors.New("this namespace may not be deleted"))
	}
	if err != nil {
		s.writeError(w, err, "Namespace", name)
		return
	}
	s.writeNamespace(w, r, http.StatusOK, ns)
}

// writeNamespace answers with ns in the negotiated form, a Table row for
// kubectl get.
func (s *Server) writeNamespace(w http.ResponseWriter, r *http.Request, code int, ns domain.Namespace) {
	kn := conversions.NamespaceToAPI(ns)
	if wantsTable(w) {
		t := s.namespaceTable([]corev1.Namespace{kn}, kn.ResourceVersion, r)
		s.writeObject(w, code, &t)
		return
	}
	s.writeObject(w, code, &kn)
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
		msg := strings.TrimSuffix(err.Error(), ": "+domain.ErrForbidden.Error())
		return apierrors.NewForbidden(gr, name, errors.New(msg))
	}
	return err
}

func (s *Server) namespaceResource() *apiResource {
	view := s.NamespaceView
	return &apiResource{
		name: "namespaces", kind: "Namespace", apiVersion: "v1", hasView: view != nil,
		object: func(o *watch.Object) runtime.Object {
			ns := namespaceAt(o.State().(domain.Namespace), o.ResourceVersion)
			return &ns
		},
		newObject: func() runtime.Object { return &corev1.Namespace{} },
		newList:   func() runtime.Object { return &corev1.NamespaceList{} },
		// kube-apiserver's field labels for namespaces.
		fieldLabels: []string{"metadata.name", "status.phase"},
		table:       itemsTable("namespace", (*Server).namespaceTable),
		register: func(h *watch.Hub) error {
			return watch.Register(h, &watch.Kind[domain.Namespace]{
				Resource: "namespaces",
				Prefix:   domain.NamespaceAggregate.Prefix(),
				Fold:     projections.FoldNamespace,
				Meta: func(ns domain.Namespace) (watch.Meta, bool) {
					if !ns.Exists() {
						return watch.Meta{}, false
					}
					return watch.Meta{Key: ns.Name, Labels: conversions.NamespaceToAPI(ns).Labels,
						Fields: fields.Set{"metadata.name": ns.Name, "status.phase": ns.Phase()}}, true
				},
				Encode: func(ns domain.Namespace, rv int64) ([]byte, error) {
					return json.Marshal(namespaceAt(ns, rv))
				},
				Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Namespace], int64, error) {
					nss, head, err := view.Rows(ctx, after, limit)
					rows := make([]watch.Row[domain.Namespace], len(nss))
					for i, ns := range nss {
						rows[i] = watch.Row[domain.Namespace]{Key: ns.Name, Stream: domain.NamespaceStream(ns.Name), ResourceVersion: ns.ResourceVersion, State: ns}
					}
					return rows, head, err
				},
			})
		},
	}
}

// namespaceAt is ns as clients see it at resourceVersion rv.
func namespaceAt(ns domain.Namespace, rv int64) corev1.Namespace {
	ns.ResourceVersion = rv
	return conversions.NamespaceToAPI(ns)
}

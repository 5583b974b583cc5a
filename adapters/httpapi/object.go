package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/domain"
)

// apiObject is a pointer to a Kubernetes object type: *corev1.ConfigMap.
type apiObject[O any] interface {
	*O
	runtime.Object
	metav1.Object
}

// object is what the shared handlers need of a kind whose objects are an
// aggregate's, in the manner of a kube-apiserver strategy: how to read
// one, how it converts to its API type, and which command each write
// verb issues. A nil create, update or delete is a verb not served.
type object[S, C, O any, PO apiObject[O]] struct {
	*kind
	// read returns the object's state, or domain.ErrNotFound.
	read func(ctx context.Context, key domain.Key) (S, error)
	// derive, when set, is an object herd shows without storing it (a
	// node's lease): gets answer it, and a PUT or PATCH of it creates
	// the stored object.
	derive func(ctx context.Context, key domain.Key) (S, bool)
	// exec runs the commands the write verbs make: the one way the API
	// changes anything.
	exec domain.Executor[S, C]
	// toAPI is the object as clients see it.
	toAPI func(S) O
	// create is the command that creates in at key; update the one that
	// makes the object in (conditional on rv when not 0); delete the one
	// that deletes it (conditional likewise).
	create func(in *O, key domain.Key) (C, error)
	update func(in *O, rv int64) (C, error)
	delete func(rv int64) C
	// deleteAnswersObject answers a delete with the object as it then
	// stands (a namespace turning Terminating) instead of a Status.
	deleteAnswersObject bool
	// rows render objects as the Table kubectl prints; nil for a kind
	// without one.
	rows func(s *Server, objs []O, r *http.Request) tableRows
	// listing lists and watches the objects through the watch hub.
	listing *listing[S]
}

// tableRows are a table's columns and one row of cells per object.
type tableRows struct {
	columns []metav1.TableColumnDefinition
	cells   [][]any
}

// describe fills o's kind with the handlers of the verbs o serves.
func (o *object[S, C, O, PO]) describe(s *Server) *kind {
	k := o.kind
	k.verbs.get = func(w http.ResponseWriter, r *http.Request) { o.serveGet(s, w, r) }
	if o.create != nil {
		k.verbs.create = func(w http.ResponseWriter, r *http.Request) { o.serveCreate(s, w, r) }
	}
	if o.update != nil {
		k.verbs.update = func(w http.ResponseWriter, r *http.Request) { o.serveUpdate(s, w, r) }
		k.verbs.patch = func(w http.ResponseWriter, r *http.Request) { o.servePatch(s, w, r) }
	}
	if o.delete != nil {
		k.verbs.delete = func(w http.ResponseWriter, r *http.Request) { o.serveDelete(s, w, r) }
	}
	if o.listing != nil {
		k.list = o.listing.resource(k, o.at, func() runtime.Object { return PO(new(O)) }, func() runtime.Object {
			list, _ := scheme.New(k.gv.WithKind(k.name + "List"))
			return list
		})
		k.verbs.list = func(w http.ResponseWriter, r *http.Request) { s.serveCollection(w, r, k.list) }
		k.watch = true
	}
	if o.rows != nil {
		k.table = true
		if k.list != nil {
			k.list.table = func(s *Server, r *http.Request, items [][]byte, rv string) (metav1.Table, error) {
				objs, err := decodeItems[O](k.singular, items)
				if err != nil {
					return metav1.Table{}, err
				}
				return o.table(s, objs, rv, r), nil
			}
		}
	}
	return k
}

// at is st as clients see it at resourceVersion rv.
func (o *object[S, C, O, PO]) at(st S, rv int64) runtime.Object {
	obj := o.toAPI(st)
	PO(&obj).SetResourceVersion(strconv.FormatInt(rv, 10))
	return PO(&obj)
}

// keyOf is the key a request's path names.
func (o *object[S, C, O, PO]) keyOf(r *http.Request) domain.Key {
	return domain.Key{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
}

// current is the object at key as stored, or as herd derives it when it
// is not stored (derived is then true).
func (o *object[S, C, O, PO]) current(ctx context.Context, key domain.Key) (st S, derived bool, err error) {
	st, err = o.read(ctx, key)
	if errors.Is(err, domain.ErrNotFound) && o.derive != nil {
		if d, ok := o.derive(ctx, key); ok {
			return d, true, nil
		}
	}
	return st, false, err
}

func (o *object[S, C, O, PO]) serveGet(s *Server, w http.ResponseWriter, r *http.Request) {
	key := o.keyOf(r)
	st, _, err := o.current(r.Context(), key)
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	o.write(s, w, r, http.StatusOK, st)
}

// serveCreate is POST to the collection.
func (o *object[S, C, O, PO]) serveCreate(s *Server, w http.ResponseWriter, r *http.Request) {
	ns := r.PathValue("namespace")
	in, err := o.decode(r, ns, "")
	if err != nil {
		s.kindError(w, o.kind, err, PO(&in).GetName())
		return
	}
	key := domain.Key{Namespace: ns, Name: PO(&in).GetName()}
	if o.namespaced {
		if err := s.acceptsObjects(r.Context(), o.groupResource(), ns, key.Name); err != nil {
			s.kindError(w, o.kind, err, key.Name)
			return
		}
	}
	st, err := o.run(r.Context(), key, func() (C, error) { return o.create(&in, key) })
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	o.write(s, w, r, http.StatusCreated, st)
}

// serveUpdate is PUT: the whole new object, conditional on the
// resourceVersion it carries. An object herd only derives is created by
// it: nothing stored could be stale against it.
func (o *object[S, C, O, PO]) serveUpdate(s *Server, w http.ResponseWriter, r *http.Request) {
	key := o.keyOf(r)
	in, err := o.decode(r, key.Namespace, key.Name)
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	rv, err := preconditionVersion(PO(&in).GetResourceVersion())
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	st, err := o.run(r.Context(), key, func() (C, error) { return o.update(&in, rv) })
	if errors.Is(err, domain.ErrNotFound) && o.derive != nil && o.create != nil {
		if _, ok := o.derive(r.Context(), key); ok {
			st, err = o.run(r.Context(), key, func() (C, error) { return o.create(&in, key) })
		}
	}
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	o.write(s, w, r, http.StatusOK, st)
}

// maxPatchAttempts bounds how often a PATCH that named no resourceVersion
// is applied again after another write got in between its read and its
// write, as kube-apiserver's GuaranteedUpdate retries.
const maxPatchAttempts = 5

// servePatch is PATCH with a JSON merge, strategic merge or JSON patch,
// applied to the object as a client would GET it, and written as an
// update conditional on the version it was applied to: a resourceVersion
// the patch itself writes is the client's precondition and a conflict
// with it is the client's to resolve; without one, herd applies the patch
// again to the newer object.
func (o *object[S, C, O, PO]) servePatch(s *Server, w http.ResponseWriter, r *http.Request) {
	key := o.keyOf(r)
	patch, ct, err := objectPatch(r)
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	strict := strictFields(r)
	for attempt := 1; ; attempt++ {
		st, err := o.patchOnce(r.Context(), key, patch, ct, strict)
		var stale *staleBase
		if errors.As(err, &stale) && attempt < maxPatchAttempts {
			continue
		}
		if stale != nil {
			err = stale.err
		}
		if err != nil {
			s.kindError(w, o.kind, err, key.Name)
			return
		}
		o.write(s, w, r, http.StatusOK, st)
		return
	}
}

// staleBase is the conflict of a patch applied to an object that changed
// before the patched object was written: the patch may apply again.
type staleBase struct{ err error }

func (e *staleBase) Error() string { return e.err.Error() }
func (e *staleBase) Unwrap() error { return e.err }

func (o *object[S, C, O, PO]) patchOnce(ctx context.Context, key domain.Key, patch []byte, ct string, strict bool) (S, error) {
	cur, derived, err := o.current(ctx, key)
	if err != nil {
		return cur, err
	}
	base := o.toAPI(cur)
	out, err := applyPatch(base, patch, ct, strict)
	if err != nil {
		return cur, err
	}
	meta := PO(&out)
	rv, err := patchedIdentity(o.name, key.Name, key.Namespace, metaOf(meta))
	if err != nil {
		return cur, err
	}
	if derived {
		return o.run(ctx, key, func() (C, error) { return o.create(&out, key) })
	}
	precondition := rv
	if precondition == 0 {
		if precondition, err = preconditionVersion(PO(&base).GetResourceVersion()); err != nil {
			return cur, err
		}
	}
	st, err := o.run(ctx, key, func() (C, error) { return o.update(&out, precondition) })
	if rv == 0 && errors.Is(err, domain.ErrConflict) {
		return st, &staleBase{err}
	}
	return st, err
}

// serveDelete is DELETE, with DeleteOptions' resourceVersion
// precondition when the body carries one.
func (o *object[S, C, O, PO]) serveDelete(s *Server, w http.ResponseWriter, r *http.Request) {
	key := o.keyOf(r)
	rv, err := deletePrecondition(r)
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	st, err := o.exec.Execute(r.Context(), key, o.delete(rv))
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	if o.deleteAnswersObject {
		o.write(s, w, r, http.StatusOK, st)
		return
	}
	s.writeStatus(w, successStatus(o.resource, key.Name))
}

// run makes the command and executes it at key.
func (o *object[S, C, O, PO]) run(ctx context.Context, key domain.Key, cmd func() (C, error)) (S, error) {
	c, err := cmd()
	if err != nil {
		var zero S
		return zero, err
	}
	return o.exec.Execute(ctx, key, c)
}

// decode reads the body of a create (name "") or an update of name, in
// namespace ns when the kind is namespaced. A dry run is refused: herd
// has none. A namespaced object takes the path's namespace and, on an
// update, its name when the body leaves them out; a body naming others is
// refused, as kube-apiserver refuses it. A cluster-scoped object has no
// namespace, whatever the body says.
func (o *object[S, C, O, PO]) decode(r *http.Request, ns, name string) (O, error) {
	var in O
	if err := refuseDryRun(r); err != nil {
		return in, err
	}
	obj := PO(&in)
	if err := decodeObject(r, obj); err != nil {
		return in, err
	}
	if !o.namespaced {
		obj.SetNamespace("")
	}
	return in, pathIdentity(metaPointer(obj), ns, name)
}

// write answers with st in the negotiated form: a Table for kubectl get.
func (o *object[S, C, O, PO]) write(s *Server, w http.ResponseWriter, r *http.Request, code int, st S) {
	obj := o.toAPI(st)
	if wantsTable(w) && o.rows != nil {
		t := o.table(s, []O{obj}, PO(&obj).GetResourceVersion(), r)
		s.writeObject(w, code, &t)
		return
	}
	s.writeObject(w, code, PO(&obj))
}

// table renders objs as the Table kubectl prints, each row carrying the
// object's metadata or, when asked, the whole object.
func (o *object[S, C, O, PO]) table(s *Server, objs []O, rv string, r *http.Request) metav1.Table {
	rows := o.rows(s, objs, r)
	t := metav1.Table{
		TypeMeta:          metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta:          metav1.ListMeta{ResourceVersion: rv},
		ColumnDefinitions: rows.columns,
		Rows:              make([]metav1.TableRow, len(objs)),
	}
	for i := range objs {
		obj := PO(&objs[i])
		t.Rows[i] = metav1.TableRow{Cells: rows.cells[i], Object: rowObject(r, obj, metaOf(obj))}
	}
	return t
}

// metaPointer is obj's ObjectMeta, to be changed in place.
func metaPointer(obj metav1.Object) *metav1.ObjectMeta {
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if m, ok := a.GetObjectMeta().(*metav1.ObjectMeta); ok {
			return m
		}
	}
	return &metav1.ObjectMeta{}
}

// metaOf is a copy of obj's ObjectMeta.
func metaOf(obj metav1.Object) metav1.ObjectMeta { return *metaPointer(obj) }

// decodeItems reads the JSON of a list's items (as the watch hub renders
// them) into O; what names them in an error.
func decodeItems[O any](what string, items [][]byte) ([]O, error) {
	out := make([]O, len(items))
	for i, data := range items {
		if err := json.Unmarshal(data, &out[i]); err != nil {
			return nil, fmt.Errorf("decode %s: %w", what, err)
		}
	}
	return out, nil
}

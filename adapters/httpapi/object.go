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
	// neverWritten, when set, says for certain that nothing was ever
	// stored at key: a PUT then goes straight to derive's creation, as
	// the update it would try first could only be refused "not found".
	neverWritten func(ctx context.Context, key domain.Key) bool
	// exec runs the commands the write verbs make: the one way the API
	// changes anything.
	exec domain.Executor[S, C]
	// toAPI is the object as clients see it.
	toAPI func(S) O
	// create is the command that creates in at key; update the one that
	// makes the object in (conditional on rv when not 0); status, when
	// set, serves the status subresource and is the command that makes
	// the object's status what in says (conditional likewise); delete is
	// the one that deletes it, as the request's options say.
	create func(in *O, key domain.Key) (C, error)
	update func(in *O, rv int64) (C, error)
	status func(in *O, rv int64) (C, error)
	delete func(opts deletion) C
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
	k.verbs.dryRun = true
	k.verbs.get = func(w http.ResponseWriter, r *http.Request) { o.serveGet(s, w, r) }
	if o.create != nil {
		k.verbs.create = func(w http.ResponseWriter, r *http.Request) { o.serveCreate(s, w, r) }
	}
	if o.update != nil {
		k.verbs.update = func(w http.ResponseWriter, r *http.Request) { o.serveUpdate(s, w, r, o.update) }
		k.verbs.patch = func(w http.ResponseWriter, r *http.Request) { o.servePatch(s, w, r, o.update) }
	}
	if o.status != nil {
		k.subresources = append(k.subresources, subresource{name: "status", table: true, verbs: verbs{
			dryRun: true,
			get:    k.verbs.get,
			update: func(w http.ResponseWriter, r *http.Request) { o.serveUpdate(s, w, r, o.status) },
			patch:  func(w http.ResponseWriter, r *http.Request) { o.servePatch(s, w, r, o.status) },
		}})
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

// dryRunner decides a command without carrying it out
// (projections.Commands' DryRun).
type dryRunner[S, C any] interface {
	DryRun(ctx context.Context, key domain.Key, cmd C) (S, error)
}

// run makes the command of request r and executes it at key; with
// ?dryRun=All it only decides it, and the answer is the object as the
// command would leave it.
func (o *object[S, C, O, PO]) run(r *http.Request, key domain.Key, cmd func() (C, error)) (S, error) {
	var zero S
	dry, err := dryRunOf(r)
	if err != nil {
		return zero, err
	}
	c, err := cmd()
	if err != nil {
		return zero, err
	}
	if !dry {
		return o.exec.Execute(r.Context(), key, c)
	}
	d, ok := o.exec.(dryRunner[S, C])
	if !ok {
		return zero, refuseDryRun(r)
	}
	return d.DryRun(r.Context(), key, c)
}

// write answers with st in the negotiated form: a Table for kubectl get.
func (o *object[S, C, O, PO]) write(s *Server, w http.ResponseWriter, r *http.Request, code int, st S) {
	obj := o.toAPI(st)
	if PO(&obj).GetResourceVersion() == "0" {
		// Never a position herd gave out: what a dry run would create.
		PO(&obj).SetResourceVersion("")
	}
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

// action serves a verb of a subresource that issues one command, made
// from the request, on the object the path names, and answers with the
// object as it then stands: herd's drain and taints of a node.
func (o *object[S, C, O, PO]) action(s *Server, command func(r *http.Request) (C, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := o.keyOf(r)
		st, err := o.run(r, key, func() (C, error) { return command(r) })
		if err != nil {
			s.kindError(w, o.kind, err, key.Name)
			return
		}
		o.write(s, w, r, http.StatusOK, st)
	}
}

// posted serves the create of a subresource that issues one command, as
// action does, and answers 201 with a Success Status, as kube-apiserver
// answers a pod's eviction or binding.
func (o *object[S, C, O, PO]) posted(s *Server, command func(r *http.Request) (C, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := o.keyOf(r)
		if _, err := o.run(r, key, func() (C, error) { return command(r) }); err != nil {
			s.kindError(w, o.kind, err, key.Name)
			return
		}
		done := successStatus(o.resource, key.Name)
		s.writeObject(w, http.StatusCreated, &done)
	}
}

package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"herd/domain"

	utilrand "k8s.io/apimachinery/pkg/util/rand"
)

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
	st, err := o.run(r, key, func() (C, error) { return o.create(&in, key) })
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	o.write(s, w, r, http.StatusCreated, st)
}

// serveUpdate is PUT: the whole new object, conditional on the
// resourceVersion it carries. An object herd only derives is created by
// it: nothing stored could be stale against it.
func (o *object[S, C, O, PO]) serveUpdate(s *Server, w http.ResponseWriter, r *http.Request, update func(*O, int64) (C, error)) {
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
	var st S
	if o.neverWritten != nil && o.neverWritten(r.Context(), key) {
		// A kubelet's first renewal of the lease herd derived from its
		// node: the update would read the row that is not there.
		err = fmt.Errorf("%s %q: %w", o.groupResource(), key.Name, domain.ErrNotFound)
		if _, derr := dryRunOf(r); derr != nil {
			err = derr
		}
	} else {
		st, err = o.run(r, key, func() (C, error) { return update(&in, rv) })
	}
	if errors.Is(err, domain.ErrNotFound) && o.derive != nil && o.create != nil {
		if _, ok := o.derive(r.Context(), key); ok {
			st, err = o.run(r, key, func() (C, error) { return o.create(&in, key) })
		}
	}
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	o.write(s, w, r, http.StatusOK, st)
}

// servePatch is PATCH with a JSON merge, strategic merge or JSON patch,
// applied to the object as a client would GET it, inside the write's own
// unit of work (domain.From), so that no other write gets in between and
// none can make it fail; a resourceVersion the patch itself writes is the
// client's precondition. An object herd only derives (a node's lease) is
// created from the patched form.
func (o *object[S, C, O, PO]) servePatch(s *Server, w http.ResponseWriter, r *http.Request, update func(*O, int64) (C, error)) {
	key := o.keyOf(r)
	patch, ct, err := objectPatch(r)
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	st, err := o.patchAt(r, key, patch, ct, strictFields(r), update)
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	o.write(s, w, r, http.StatusOK, st)
}

func (o *object[S, C, O, PO]) patchAt(r *http.Request, key domain.Key, patch []byte, ct string, strict bool, update func(*O, int64) (C, error)) (S, error) {
	if o.derive != nil {
		cur, derived, err := o.current(r.Context(), key)
		if err != nil {
			return cur, err
		}
		if derived {
			out, _, err := o.patched(cur, key, patch, ct, strict)
			if err != nil {
				return cur, err
			}
			return o.run(r, key, func() (C, error) { return o.create(&out, key) })
		}
	}
	from := domain.From[S, C](func(cur S) (C, error) {
		var none C
		if o.listing != nil && !o.listing.exists(cur) {
			return none, fmt.Errorf("%s %q: %w", o.resource, key.Name, domain.ErrNotFound)
		}
		out, rv, err := o.patched(cur, key, patch, ct, strict)
		if err != nil {
			return none, err
		}
		return update(&out, rv)
	})
	cmd, ok := any(from).(C)
	if !ok {
		return *new(S), fmt.Errorf("%s cannot be patched inside its unit of work", o.resource)
	}
	return o.run(r, key, func() (C, error) { return cmd, nil })
}

// patched is cur with the patch applied, as a client would GET it, and
// the resourceVersion the patch writes (0 for none); a patch that renames
// the object is refused.
func (o *object[S, C, O, PO]) patched(cur S, key domain.Key, patch []byte, ct string, strict bool) (O, int64, error) {
	out, err := applyPatch(o.toAPI(cur), patch, ct, strict)
	if err != nil {
		return out, 0, err
	}
	rv, err := patchedIdentity(o.name, key.Name, key.Namespace, metaOf(PO(&out)))
	return out, rv, err
}

// serveDelete is DELETE, with DeleteOptions' resourceVersion
// precondition and grace period. The answer is the object while it is
// still being deleted (a pod terminating, a namespace emptying), and a
// Status once it is gone, as kube-apiserver answers.
func (o *object[S, C, O, PO]) serveDelete(s *Server, w http.ResponseWriter, r *http.Request) {
	key := o.keyOf(r)
	opts, err := deleteOptions(r)
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	st, err := o.run(r, key, func() (C, error) { return o.delete(opts), nil })
	if err != nil {
		s.kindError(w, o.kind, err, key.Name)
		return
	}
	if o.listing != nil && o.listing.exists(st) {
		o.write(s, w, r, http.StatusOK, st)
		return
	}
	gone, obj := successStatus(o.resource, key.Name), o.toAPI(st)
	gone.Details.UID = PO(&obj).GetUID()
	s.writeStatus(w, gone)
}

// decode reads the body of a create (name "") or an update of name, in
// namespace ns when the kind is namespaced. A dry run is refused: herd
// has none. A namespaced object takes the path's namespace and, on an
// update, its name when the body leaves them out; a body naming others is
// refused, as kube-apiserver refuses it. A cluster-scoped object has no
// namespace, whatever the body says.
func (o *object[S, C, O, PO]) decode(r *http.Request, ns, name string) (O, error) {
	var in O
	obj := PO(&in)
	if err := decodeObject(r, obj); err != nil {
		return in, err
	}
	if !o.namespaced {
		obj.SetNamespace("")
	}
	if name == "" && obj.GetName() == "" && obj.GetGenerateName() != "" {
		// A name made up from generateName, as kube-apiserver makes it.
		obj.SetName(obj.GetGenerateName() + utilrand.String(5))
	}
	return in, pathIdentity(metaPointer(obj), ns, name)
}

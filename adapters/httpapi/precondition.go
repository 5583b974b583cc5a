package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// preconditionVersion reads a resourceVersion a client sent as the version
// its write is based on: "" is none.
func preconditionVersion(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || v <= 0 {
		return 0, badRequest("metadata.resourceVersion %q is not a resourceVersion herd gave out (a positive log position)", rv)
	}
	return v, nil
}

// deletion is what a DELETE asks for: a resourceVersion precondition (0
// for none) and a grace period (nil for the object's own).
type deletion struct {
	resourceVersion int64
	gracePeriod     *int64
	// propagation is how the deletion reaches what the object owns
	// (propagationPolicy, or the older orphanDependents).
	propagation domain.Propagation
}

// deleteOptions reads a DELETE's options: ?gracePeriodSeconds=, which
// wins, and the DeleteOptions body when there is one.
func deleteOptions(r *http.Request) (deletion, error) {
	var d deletion
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return d, err
	}
	// The body stays for whoever reads it next (a dry run's check).
	defer func() { r.Body = io.NopCloser(bytes.NewReader(data)) }()
	r.Body = io.NopCloser(bytes.NewReader(data))
	var opts metav1.DeleteOptions
	if err := decodeObject(r, &opts); err != nil && !errors.Is(err, errEmptyBody) {
		return d, err
	}
	if p := opts.Preconditions; p != nil && p.ResourceVersion != nil {
		rv, err := preconditionVersion(*p.ResourceVersion)
		if err != nil {
			return d, err
		}
		d.resourceVersion = rv
	}
	d.gracePeriod = opts.GracePeriodSeconds
	policy := r.URL.Query().Get("propagationPolicy")
	if opts.PropagationPolicy != nil {
		policy = string(*opts.PropagationPolicy)
	}
	// Refused as kube-apiserver's ValidateDeleteOptions refuses them.
	invalidOptions := func(field, value, reason string) error {
		return &domain.InvalidError{Kind: "DeleteOptions.meta.k8s.io", Fields: []domain.FieldError{{Field: field, Value: value, Reason: reason}}}
	}
	// Deprecated, and still honoured by kube-apiserver, as by herd.
	orphanDependents := opts.OrphanDependents //nolint:staticcheck // SA1019: older clients still send it
	if orphanDependents != nil {
		if policy != "" {
			return d, invalidOptions("orphanDependents", strconv.FormatBool(*orphanDependents), "OrphanDependents and DeletionPropagation cannot be both set")
		}
		if *orphanDependents {
			policy = string(domain.PropagateOrphan)
		}
	}
	if d.propagation, err = domain.ParsePropagation(policy); err != nil {
		return d, invalidOptions("propagationPolicy", "", fmt.Sprintf(`Unsupported value: %q: supported values: "Foreground", "Background", "Orphan"`, policy))
	}
	if raw := r.URL.Query().Get("gracePeriodSeconds"); raw != "" {
		v, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return d, badRequest("gracePeriodSeconds %q is not an integer", raw)
		}
		d.gracePeriod = &v
	}
	return d, nil
}

// patchedIdentity checks that a patch left an object's name and namespace
// as they were, as kube-apiserver does, and returns the resourceVersion
// the patched object names as its precondition (0 for none).
func patchedIdentity(kind, name, namespace string, out metav1.ObjectMeta) (int64, error) {
	var errs []domain.FieldError
	if out.Name != name {
		errs = append(errs, domain.FieldError{Field: "metadata.name", Value: out.Name, Reason: "field is immutable"})
	}
	if out.Namespace != namespace {
		errs = append(errs, domain.FieldError{Field: "metadata.namespace", Value: out.Namespace, Reason: "field is immutable"})
	}
	if len(errs) > 0 {
		return 0, &domain.InvalidError{Kind: kind, Name: name, Fields: errs}
	}
	return preconditionVersion(out.ResourceVersion)
}

// pathIdentity gives a namespaced object from a request's body the
// namespace of the path, and on a PUT (name not "") the name, when the
// body leaves them out, and refuses a body naming others, as
// kube-apiserver does.
func pathIdentity(meta *metav1.ObjectMeta, ns, name string) error {
	if meta.Namespace == "" {
		meta.Namespace = ns
	}
	if meta.Namespace != ns {
		return badRequest("the namespace of the provided object (%s) does not match the namespace sent on the request (%s)", meta.Namespace, ns)
	}
	if name != "" && meta.Name == "" {
		meta.Name = name
	}
	if name != "" && meta.Name != name {
		return badRequest("the name of the object (%s) does not match the name on the URL (%s)", meta.Name, name)
	}
	return nil
}

// ifVersion is cmd conditional on the object being at rv, or cmd itself
// when rv is 0 (a write that names no resourceVersion pays for no
// wrapper). C is an aggregate's command type; domain.Precondition is one.
func ifVersion[C any](rv int64, cmd C) C {
	if rv == 0 {
		return cmd
	}
	return any(domain.Precondition[C]{ResourceVersion: rv, Command: cmd}).(C)
}

// dryRunOf says whether r asks for a dry run: ?dryRun=All, or for a
// delete the dryRun of its DeleteOptions, where kubectl delete
// --dry-run=server puts it. All is the one value kube-apiserver takes.
func dryRunOf(r *http.Request) (bool, error) {
	values := r.URL.Query()["dryRun"]
	if r.Method == http.MethodDelete && r.Body != nil && r.Body != http.NoBody {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return false, err
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		if len(data) > 0 {
			var opts metav1.DeleteOptions
			// A body that does not decode is the handler's to refuse.
			if _, err := decodeBody(r, &opts); err == nil {
				values = append(values, opts.DryRun...)
			}
			r.Body = io.NopCloser(bytes.NewReader(data))
		}
	}
	for _, v := range values {
		if v != "All" {
			return false, badRequest("dryRun=%s: the only dry run is All", v)
		}
	}
	return len(values) > 0, nil
}

// refuseDryRun refuses, with 400, a request that asks for a dry run
// where herd cannot run it without carrying it out (its own endpoints, a
// node's heartbeat): a request that asked for one must not change
// anything.
func refuseDryRun(r *http.Request) error {
	dry, err := dryRunOf(r)
	if err != nil {
		return err
	}
	if dry {
		return badRequest("dryRun=All: herd cannot run %s %s without carrying it out; nothing was changed", r.Method, r.URL.Path)
	}
	return nil
}

package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"herd/projections/watch"
)

// listOptions are a list or watch request's query parameters, checked.
type listOptions struct {
	// namespace is the namespace of the path; "" across namespaces.
	namespace string
	labels    labels.Selector
	fields    fields.Selector
	// rv is resourceVersion as given: "" (most recent), "0" (any) or a
	// log position, parsed into position.
	rv       string
	position int64
	// rvMatch is resourceVersionMatch: "", Exact or NotOlderThan.
	rvMatch metav1.ResourceVersionMatch
	limit   int
	// cont is the decoded continue token, nil when none was given.
	cont *continueToken
	// asOf is herd's ?asOf=: a list of the past at a time (RFC 3339, or
	// a duration ago) or a resourceVersion, "" for none.
	asOf string

	watch             bool
	allowBookmarks    bool
	sendInitialEvents *bool
	// timeout is timeoutSeconds; 0 when not given.
	timeout time.Duration
}

// match is the namespace and the selectors as a watch.Object predicate.
func (o listOptions) match(obj *watch.Object) bool {
	fs := obj.Meta.FieldSet()
	return (o.namespace == "" || fs.Get("metadata.namespace") == o.namespace) &&
		o.labels.Matches(labels.Set(obj.Meta.Labels)) && o.fields.Matches(fs)
}

// parseListOptions reads the query of a list or watch of res, refusing
// what kube-apiserver refuses, with its reasons: a malformed value is a
// 400 BadRequest naming the parameter, a combination Kubernetes forbids
// is 422 Invalid naming the field.
func parseListOptions(r *http.Request, res *apiResource) (listOptions, error) {
	q := r.URL.Query()
	var (
		o   listOptions
		err error
	)
	if res.namespaced {
		o.namespace = r.PathValue("namespace")
	}
	if o.labels, err = labelSelector(r); err != nil {
		return o, err
	}
	if o.fields, err = resourceFieldSelector(q.Get("fieldSelector"), res); err != nil {
		return o, err
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"watch", &o.watch}, {"allowWatchBookmarks", &o.allowBookmarks}} {
		if *b.dst, err = boolParam(q, b.name); err != nil {
			return o, err
		}
	}
	if q.Has("sendInitialEvents") {
		v, err := boolParam(q, "sendInitialEvents")
		if err != nil {
			return o, err
		}
		o.sendInitialEvents = &v
	}
	o.rv = q.Get("resourceVersion")
	if o.rv != "" {
		if o.position, err = strconv.ParseInt(o.rv, 10, 64); err != nil || o.position < 0 {
			return o, badRequest("resourceVersion must be a log position (a non-negative integer), got %q", o.rv)
		}
	}
	o.rvMatch = metav1.ResourceVersionMatch(q.Get("resourceVersionMatch"))
	if v := q.Get("limit"); v != "" {
		if o.limit, err = strconv.Atoi(v); err != nil || o.limit < 0 {
			return o, badRequest("limit must be a non-negative integer, got %q", v)
		}
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs < 0 || secs > int64(maxWatchTimeout/time.Second) {
			return o, badRequest("timeoutSeconds must be an integer from 0 to %d, got %q", int64(maxWatchTimeout/time.Second), v)
		}
		o.timeout = time.Duration(secs) * time.Second
	}
	if v := q.Get("continue"); v != "" {
		tok, err := decodeContinue(v)
		if err != nil {
			return o, err
		}
		o.cont = &tok
	}
	if o.asOf = q.Get("asOf"); o.asOf != "" && (o.rv != "" || o.watch || o.cont != nil) {
		return o, badRequest("asOf lists the past by itself: it takes no resourceVersion, watch or continue")
	}
	return o, o.validate()
}

// validate refuses the combinations kube-apiserver refuses, with its own
// validation and its words: a 422 Invalid Status naming each field.
func (o listOptions) validate() error {
	opts := internalversion.ListOptions{
		ResourceVersion:      o.rv,
		ResourceVersionMatch: o.rvMatch,
		Watch:                o.watch,
		SendInitialEvents:    o.sendInitialEvents,
	}
	if o.cont != nil {
		opts.Continue = "set"
	}
	if errs := validation.ValidateListOptions(&opts, true); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	}
	if o.cont != nil && o.rv != "" && o.rv != "0" {
		return badRequest("specifying resource version is not allowed when using continue")
	}
	return nil
}

func boolParam(q map[string][]string, name string) (bool, error) {
	vs := q[name]
	if len(vs) == 0 || vs[0] == "" {
		return false, nil
	}
	v, err := strconv.ParseBool(vs[0])
	if err != nil {
		return false, badRequest("%s must be true or false, got %q", name, vs[0])
	}
	return v, nil
}

// resourceFieldSelector parses a field selector and checks that it names only
// fields the resource can be selected by, as kube-apiserver does.
func resourceFieldSelector(raw string, res *apiResource) (fields.Selector, error) {
	sel, err := fields.ParseSelector(raw)
	if err != nil {
		return nil, badRequest("unable to parse fieldSelector %q: %v", raw, err)
	}
	for _, req := range sel.Requirements() {
		if !slices.Contains(res.fieldLabels, req.Field) {
			return nil, badRequest("field label not supported: %s (%s can be selected by %s)", req.Field, res.name, strings.Join(res.fieldLabels, ", "))
		}
	}
	return sel, nil
}

// continueToken is where a paged listing resumes: after the key Start, as
// of the log position RV. Clients treat it as opaque.
type continueToken struct {
	// V versions the token's format.
	V string `json:"v"`
	// RV is the log position every page of the listing is as of; 0 for
	// whatever is current (a token handed out when the pinned position
	// had expired).
	RV int64 `json:"rv"`
	// Start is the key of the last object returned so far.
	Start string `json:"start"`
}

const continueVersion = "herd.dev/v1"

func (t continueToken) encode() string {
	data, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(data)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(data, &t)
	}
	if err == nil && t.V != continueVersion {
		err = fmt.Errorf("version %q is not %q", t.V, continueVersion)
	}
	if err == nil && t.RV < 0 {
		err = errors.New("negative resourceVersion")
	}
	if err != nil {
		return t, badRequest("continue key is not valid: %v; start the list again without it", err)
	}
	return t, nil
}

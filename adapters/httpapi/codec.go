package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"

	gojson "github.com/goccy/go-json"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// scheme knows every Kubernetes type herd reads or writes in a body:
// core/v1 (with meta/v1's Status, WatchEvent and options), policy's
// Eviction, coordination.k8s.io's Lease, apps/v1's Deployment and
// ReplicaSet, autoscaling/v1's Scale, batch/v1's Job, metrics.k8s.io's
// NodeMetrics and PodMetrics,
// and meta.k8s.io/v1's Table.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(corev1.AddToScheme(s))
	utilruntime.Must(eventsv1.AddToScheme(s))
	utilruntime.Must(policyv1.AddToScheme(s))
	utilruntime.Must(coordinationv1.AddToScheme(s))
	utilruntime.Must(appsv1.AddToScheme(s))
	utilruntime.Must(autoscalingv1.AddToScheme(s))
	utilruntime.Must(batchv1.AddToScheme(s))
	// kubectl drain still speaks policy/v1beta1 to servers that do not
	// list policy/v1.
	utilruntime.Must(policyv1beta1.AddToScheme(s))
	utilruntime.Must(metricsv1beta1.AddToScheme(s))
	utilruntime.Must(authorizationv1.AddToScheme(s))
	utilruntime.Must(authenticationv1.AddToScheme(s))
	utilruntime.Must(metav1.AddMetaToScheme(s))
	return s
}()

// codecs are apimachinery's serializers over scheme: the same JSON,
// protobuf and CBOR that kube-apiserver and client-go use.
var codecs = serializer.NewCodecFactory(scheme, serializer.WithSerializer(cbor.NewSerializerInfo))

// protobufType is Kubernetes' protobuf media type, which client-go's
// typed clients send built-in objects in by default.
const protobufType = runtime.ContentTypeProtobuf

// servedTypes are the media types herd reads and writes Kubernetes objects
// in, JSON first: the answer to */* and to a request with no Accept.
// YAML is left out, as it always was.
var servedTypes = func() []runtime.SerializerInfo {
	var out []runtime.SerializerInfo
	for _, mt := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf, runtime.ContentTypeCBOR} {
		info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mt)
		if !ok {
			panic("httpapi: apimachinery has no serializer for " + mt)
		}
		out = append(out, info)
	}
	return out
}()

// jsonOnly is the one media type herd's own kinds (herd.dev) come in:
// they have no protobuf form.
var jsonOnly = servedTypes[:1]

// mediaTypeNames lists the media types of infos, as 406 and 415 name them.
func mediaTypeNames(infos []runtime.SerializerInfo) []string {
	names := make([]string, len(infos))
	for i, info := range infos {
		names[i] = info.MediaType
	}
	return names
}

// decodeObject reads the (size-limited) body into into, in the media type
// its Content-Type names (JSON when it names none), with apimachinery's
// serializer for that type. fieldValidation=Strict (kubectl's default)
// refuses fields the kind does not have, as kube-apiserver does; protobuf
// has no unknown fields to refuse. A body of another kind than into's is
// a 400, in kube-apiserver's words.
func decodeObject(r *http.Request, into runtime.Object) error {
	obj, err := decodeBody(r, into)
	if err != nil {
		return err
	}
	if obj != into {
		gvk := obj.GetObjectKind().GroupVersionKind()
		return cannotBeHandled(gvk.Kind, gvk.Version, into, fmt.Errorf("the body is a %s, not a %s", describeKind(obj), kindOf(into)))
	}
	return nil
}

// cannotBeHandled is kube-apiserver's 400 for a body that names a kind
// it cannot decode as into's: `Pod in version "v1" cannot be handled as
// a Node: ...`.
func cannotBeHandled(kind, version string, into runtime.Object, err error) error {
	return badRequest("%s in version %q cannot be handled as a %s: %v", kind, version, kindOf(into), err)
}

// decodeBody is decodeObject for a body that may be of another kind the
// scheme knows than into's (an older version of it): that object is
// returned instead of into.
func decodeBody(r *http.Request, into runtime.Object) (runtime.Object, error) {
	ct := bodyMediaType(r)
	info, ok := runtime.SerializerInfoForMediaType(servedTypes, ct)
	if !ok {
		return nil, unsupportedType(ct, mediaTypeNames(servedTypes))
	}
	data, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if info.MediaType == runtime.ContentTypeJSON && decodeFastJSON(data, into) {
		if mayHoldBadText(data) {
			if err := cleanText(into); err != nil {
				return nil, err
			}
		}
		return into, nil
	}
	dec := info.Serializer
	if strictFields(r) && info.StrictSerializer != nil {
		dec = info.StrictSerializer
	}
	obj, gvk, err := dec.Decode(data, nil, into)
	if err != nil && gvk != nil && gvk.Kind != "" && runtime.IsNotRegisteredError(err) {
		return nil, cannotBeHandled(gvk.Kind, gvk.Version, into, err)
	}
	if err != nil {
		return nil, badRequest("the request body is not a valid %s %s: %v", info.MediaType, kindOf(into), err)
	}
	// Protobuf and CBOR keep a string's bytes as sent.
	if info.MediaType != runtime.ContentTypeJSON || mayHoldBadText(data) {
		if err := cleanText(obj); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// strictFields says whether the request asks for strict field validation
// (fieldValidation=Strict, kubectl's default): a body or patch that brings
// a field the kind does not have is then refused instead of the field
// dropped.
func strictFields(r *http.Request) bool { return r.URL.Query().Get("fieldValidation") == "Strict" }

// bodyMediaType is the media type of r's body, lower-cased as media
// types compare (RFC 9110); JSON when the request names none.
func bodyMediaType(r *http.Request) string {
	ct := strings.ToLower(strings.TrimSpace(mediaType(r)))
	if ct == "" {
		return runtime.ContentTypeJSON
	}
	return ct
}

// describeKind names obj's kind with its version: "policy/v1beta1
// Eviction".
func describeKind(obj runtime.Object) string {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		return kindOf(obj)
	}
	return gvk.GroupVersion().String() + " " + gvk.Kind
}

// kindOf names into's kind as the scheme knows it: "/v1, Kind=Node".
func kindOf(into runtime.Object) string {
	gvks, _, err := scheme.ObjectKinds(into)
	if err != nil || len(gvks) == 0 {
		return fmt.Sprintf("%T", into)
	}
	return gvks[0].Kind
}

// errEmptyBody is the answer to a request that needed a body and sent
// none; a caller for which the body is optional branches on it.
var errEmptyBody = badRequest("the request body is empty")

// readBody reads the whole (size-limited) body, refusing an empty one
// with errEmptyBody.
func readBody(r *http.Request) ([]byte, error) {
	data, err := readAllSized(r.Body, r.ContentLength)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errEmptyBody
	}
	return data, nil
}

// readAllSized is io.ReadAll with its first buffer sized for the
// Content-Length the client declared (one byte more, to see the end
// without growing): io.ReadAll starts at 512 bytes and doubles, which
// cost a kubelet's Node create several copies of its body. A length
// above MaxBodyBytes is not trusted for the size (the body is cut there
// anyway), nor is an unknown one (-1); the reading is io.ReadAll's, so a
// body longer or shorter than declared reads as it always did.
func readAllSized(body io.Reader, declared int64) ([]byte, error) {
	if declared <= 0 || declared > MaxBodyBytes {
		return io.ReadAll(body)
	}
	b := make([]byte, 0, declared+1)
	for {
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// decodeJSON reads one JSON document from the (size-limited) body.
func decodeJSON(r *http.Request, v any) error {
	data, err := readBody(r)
	if err != nil {
		return err
	}
	// goccy/go-json decodes as encoding/json does (the same fields, the
	// same errors; codec_json_test.go holds it to that) in a fraction of
	// its time: a kubelet's status report is decoded on every heartbeat.
	dec := gojson.NewDecoder(bytes.NewReader(data))
	// kubectl asks for strict validation by default: an unknown field is
	// then an error rather than ignored.
	if strictFields(r) {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return badRequest("the request body is not valid JSON for this resource: strict decoding error: %v", err)
	}
	if mayHoldBadText(data) {
		return cleanText(v)
	}
	return nil
}

func labelSelector(r *http.Request) (labels.Selector, error) {
	raw := r.URL.Query().Get("labelSelector")
	sel, err := labels.Parse(raw)
	if err != nil {
		return nil, badRequest("unable to parse labelSelector %q: %v", raw, err)
	}
	return sel, nil
}

func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	for i := 0; i < len(ct); i++ {
		if ct[i] == ';' {
			return ct[:i]
		}
	}
	return ct
}

// encodeJSON writes obj as apimachinery's JSON serializer, behind
// codecs.WithoutConversion, does: its kind and apiVersion set from the
// scheme for the encoding (a type the scheme does not know goes as it
// is), then encoding/json's bytes and a newline. goccy/go-json writes
// the same bytes (codec_json_test.go holds it to that) in about half the
// time; every answer to a heartbeat is one.
func encodeJSON(obj runtime.Object, w io.Writer) error {
	gvks, _, err := scheme.ObjectKinds(obj)
	switch {
	case runtime.IsNotRegisteredError(err):
	case err != nil:
		return err
	default:
		kind := obj.GetObjectKind()
		if old := kind.GroupVersionKind(); old != gvks[0] {
			kind.SetGroupVersionKind(gvks[0])
			defer kind.SetGroupVersionKind(old)
		}
	}
	return gojson.NewEncoder(w).Encode(obj)
}

package httpapi

import (
	"reflect"

	jsonv2 "github.com/goccy/go-json/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// fastJSONOptions are the JSON rules under which a body decoded by
// decodeFastJSON is what apimachinery's JSON serializer
// (sigs.k8s.io/json) would have made of it. Its names match fields case
// by case, as that serializer matches them (encoding/json/v2's default,
// kept by leaving MatchCaseInsensitiveNames off); a name the kind does not
// have, a name twice in an object and invalid UTF-8 are errors here,
// where the serializer drops, keeps the last, or replaces them: any error
// leaves the body to the serializer, which then answers exactly as it
// always did (a strict-validation refusal included).
var fastJSONOptions = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true), jsonv2.MatchCaseInsensitiveNames(false))

// decodeFastJSON decodes a JSON body of the kinds a kubelet sends on
// every registration and lease renewal — a Node, a Lease — with
// goccy/go-json's encoding/json/v2, which takes a fraction of the time
// and allocations of apimachinery's serializer. It decodes only what
// that serializer would decode the same: into a zero object, of a body
// whose apiVersion and kind are into's or absent (the serializer then
// decodes into into itself), with none of the JSON fastJSONOptions
// refuses. ok is false, and into left as it was, for anything else: the
// caller then uses the serializer. codec_fast_test.go holds the two to
// the same objects.
func decodeFastJSON(data []byte, into runtime.Object) (ok bool) {
	switch p := into.(type) {
	case *corev1.Node:
		return decodeFastInto(data, p, &p.TypeMeta, nodeGVK)
	case *coordinationv1.Lease:
		return decodeFastInto(data, p, &p.TypeMeta, leaseGVK)
	}
	return false
}

// nodeGVK and leaseGVK are the apiVersion and kind a body of each may
// name for decodeFastJSON to decode it.
var (
	nodeGVK  = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	leaseGVK = metav1.TypeMeta{APIVersion: coordinationv1.SchemeGroupVersion.String(), Kind: "Lease"}
)

// decodeFastInto is decodeFastJSON for one type T, whose TypeMeta tm
// points into p. The serializer decodes over what into already holds;
// the fast path takes only a zero object, as a request's is.
func decodeFastInto[T any](data []byte, p *T, tm *metav1.TypeMeta, want metav1.TypeMeta) bool {
	if !reflect.ValueOf(p).Elem().IsZero() {
		return false
	}
	if err := jsonv2.Unmarshal(data, p, fastJSONOptions); err != nil {
		*p = *new(T)
		return false
	}
	// The serializer takes a missing apiVersion or kind to be into's;
	// one that names another version or kind makes it decode into
	// another object (or refuse the body).
	if (tm.APIVersion != "" && tm.APIVersion != want.APIVersion) || (tm.Kind != "" && tm.Kind != want.Kind) {
		*p = *new(T)
		return false
	}
	return true
}

package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"
)

// The patch types herd applies, as kube-apiserver names them.
const (
	mergePatch     = "application/merge-patch+json"
	strategicPatch = "application/strategic-merge-patch+json"
	jsonPatch      = "application/json-patch+json"
)

// patchTypes are the patch types every PATCH of an object accepts.
var patchTypes = []string{jsonPatch, mergePatch, strategicPatch}

// unsupportedType is the 415 of a body in a media type the endpoint does
// not read, naming those it does: a PATCH in another format (server-side
// apply's application/apply-patch+yaml), an object in YAML.
func unsupportedType(ct string, accepted []string) error {
	return &requestError{http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s (got %q)", strings.Join(accepted, ", "), ct)}
}

// objectPatch reads the body of a PATCH: its patch type from the
// Content-Type (415 naming those herd applies otherwise), and a body that
// must not be empty.
func objectPatch(r *http.Request) (patch []byte, contentType string, err error) {
	contentType = mediaType(r)
	if !slices.Contains(patchTypes, contentType) {
		return nil, "", unsupportedType(contentType, patchTypes)
	}
	patch, err = readBody(r)
	if err != nil {
		return nil, "", err
	}
	if len(patch) == 0 {
		return nil, "", badRequest("the patch is empty")
	}
	return patch, contentType, nil
}

// decodePatched reads a patched object into out, case-sensitively as
// kube-apiserver does; when strict, a field out's type does not have, or
// a field twice, is a 400 naming each (sigs.k8s.io/json, the decoder of
// apimachinery's strict serializer, gives their paths).
func decodePatched(patched []byte, out any, strict bool) error {
	if err := decodePatchedAs(patched, out, strict); err != nil || !mayHoldBadText(patched) {
		return err
	}
	return cleanText(out)
}

// decodePatchedAs is decodePatched before the strings are checked.
func decodePatchedAs(patched []byte, out any, strict bool) error {
	if !strict {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(patched, out); err != nil {
			return badRequest("the patched object is not valid: %v", err)
		}
		return nil
	}
	problems, err := kjson.UnmarshalStrict(patched, out)
	if err != nil {
		return badRequest("the patched object is not valid: %v", err)
	}
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Error()
		}
		return badRequest("strict decoding error: %s", strings.Join(msgs, ", "))
	}
	return nil
}

// applyPatch applies a patch of the given type to object (any Kubernetes
// type) and decodes the result into out, which has object's type,
// strictly when asked (see strictFields). A patch that does not apply is a
// 400 naming why.
func applyPatch[T any](object T, patch []byte, contentType string, strict bool) (T, error) {
	var out T
	original, err := json.Marshal(object)
	if err != nil {
		return out, err
	}
	var patched []byte
	switch contentType {
	case mergePatch:
		patched, err = jsonpatch.MergePatch(original, patch)
	case strategicPatch:
		patched, err = strategicpatch.StrategicMergePatch(original, patch, object)
	case jsonPatch:
		if patched, err = applyJSONPatch(original, patch); err != nil {
			return out, err
		}
	default:
		return out, unsupportedType(contentType, patchTypes)
	}
	if err != nil {
		return out, badRequest("the patch does not apply: %v", err)
	}
	return out, decodePatched(patched, &out, strict)
}

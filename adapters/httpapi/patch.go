package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"
)

// patchBody reads a PATCH request's body and the patch type from its
// Content-Type, refusing types herd does not apply.
func patchBody(r *http.Request) (data []byte, contentType string, err error) {
	contentType = mediaType(r)
	switch contentType {
	case "application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json":
	default:
		return nil, "", unsupportedMediaType(contentType)
	}
	data, err = readBody(r)
	if err != nil {
		return nil, "", err
	}
	return data, contentType, nil
}

// objectPatch reads the PATCH of a ConfigMap or a lease: its patch type
// from the Content-Type (415 naming the three herd applies otherwise), a
// refused dry run, and a body that must not be empty.
func objectPatch(r *http.Request) (patch []byte, contentType string, err error) {
	contentType = mediaType(r)
	if contentType != mergePatch && contentType != strategicPatch && contentType != jsonPatch {
		return nil, "", unsupportedPatchType(contentType)
	}
	if err := refuseDryRun(r); err != nil {
		return nil, "", err
	}
	patch, err = io.ReadAll(r.Body)
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
	case "application/merge-patch+json":
		patched, err = jsonpatch.MergePatch(original, patch)
	case "application/strategic-merge-patch+json":
		patched, err = strategicpatch.StrategicMergePatch(original, patch, object)
	case "application/json-patch+json":
		patched, err = applyJSONPatch(original, patch)
		var limit *requestError
		if errors.As(err, &limit) {
			return out, err
		}
	default:
		return out, unsupportedMediaType(contentType)
	}
	if err != nil {
		return out, badRequest("the patch does not apply: %v", err)
	}
	return out, decodePatched(patched, &out, strict)
}

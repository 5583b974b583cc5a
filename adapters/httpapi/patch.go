package httpapi

import (
	"encoding/json"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
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

// applyPatch applies a patch of the given type to object (any Kubernetes
// type) and decodes the result into out, which has object's type. A patch
// that does not apply is a 400 naming why.
func applyPatch[T any](object T, patch []byte, contentType string) (T, error) {
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
		var ops jsonpatch.Patch
		if ops, err = jsonpatch.DecodePatch(patch); err == nil {
			patched, err = ops.Apply(original)
		}
	default:
		return out, unsupportedMediaType(contentType)
	}
	if err != nil {
		return out, badRequest("the patch does not apply: %v", err)
	}
	if err := json.Unmarshal(patched, &out); err != nil {
		return out, badRequest("the patched object is not valid: %v", err)
	}
	return out, nil
}

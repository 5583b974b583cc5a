package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The limits kube-apiserver puts on a JSON patch (RFC 6902). Without
// them one small patch is a resource bomb: each "copy" of a member into
// itself doubles the document, so two dozen copies in a 1 KB request
// ask for gigabytes.
const (
	// maxJSONPatchOperations is kube-apiserver's maxJSONPatchOperations
	// (endpoints/handlers/patch.go): more operations are a 413.
	maxJSONPatchOperations = 10000
	// maxJSONPatchCopyBytes is kube-apiserver's default
	// JSONPatchMaxCopyBytes (server/config.go, 3 MiB, its request body
	// limit too): the most a patch's copy operations may add up to.
	maxJSONPatchCopyBytes = 3 << 20
)

// The json-patch library reads its copy limit from a package variable,
// as kube-apiserver sets it once at start.
func init() { jsonpatch.AccumulatedCopySizeLimit = maxJSONPatchCopyBytes }

// applyJSONPatch applies an RFC 6902 patch to original within the limits
// above: a patch that does not parse is a 400, one with too many
// operations a 413, one whose copies would grow the document past the
// limit a 422, and one whose operations do not apply (a failed test) a
// 422 too, as kube-apiserver answers each.
func applyJSONPatch(original, patch []byte) ([]byte, error) {
	ops, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, badRequest("the JSON patch does not parse: %v", err)
	}
	if len(ops) > maxJSONPatchOperations {
		return nil, &requestError{http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
			fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops))}
	}
	patched, err := ops.Apply(original)
	var tooMuch *jsonpatch.AccumulatedCopySizeError
	if errors.As(err, &tooMuch) {
		return nil, &requestError{http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			fmt.Sprintf("the JSON patch's copy operations would add more than %d bytes: %v", maxJSONPatchCopyBytes, err)}
	}
	if err != nil {
		return nil, &requestError{http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "the JSON patch does not apply: " + err.Error()}
	}
	return patched, nil
}

package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"herd/adapters/conversions"
	"herd/domain"
)

// The patch types a ConfigMap accepts, as kube-apiserver names them.
const (
	mergePatch     = "application/merge-patch+json"
	strategicPatch = "application/strategic-merge-patch+json"
	jsonPatch      = "application/json-patch+json"
)

// unsupportedPatchType is the 415 of a PATCH in another format, such as
// server-side apply (application/apply-patch+yaml).
func unsupportedPatchType(ct string) error {
	return &requestError{http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s (got %q)",
			jsonPatch, mergePatch, strategicPatch, ct)}
}

// configMapPatcher applies a patch the way kube-apiserver does: to the
// ConfigMap as a client would GET it, with the same libraries (RFC 7386
// merge, Kubernetes' strategic merge with ConfigMap's schema, RFC 6902 JSON
// patch). The result becomes an update; a resourceVersion the patch wrote
// into it is a precondition, and one it left alone holds by construction.
func configMapPatcher(contentType string, patch []byte, strict bool) func(domain.ConfigMap) (domain.UpdateConfigMap, error) {
	return func(cur domain.ConfigMap) (domain.UpdateConfigMap, error) {
		original, err := json.Marshal(conversions.ConfigMapToAPI(cur))
		if err != nil {
			return domain.UpdateConfigMap{}, err
		}
		var patched []byte
		switch contentType {
		case mergePatch:
			patched, err = jsonpatch.MergePatch(original, patch)
		case strategicPatch:
			patched, err = strategicpatch.StrategicMergePatch(original, patch, corev1.ConfigMap{})
		case jsonPatch:
			patched, err = applyJSONPatch(original, patch)
			var limit *requestError
			if errors.As(err, &limit) {
				return domain.UpdateConfigMap{}, err
			}
		default:
			return domain.UpdateConfigMap{}, unsupportedPatchType(contentType)
		}
		if err != nil {
			return domain.UpdateConfigMap{}, &domain.InvalidError{Kind: "ConfigMap", Name: cur.Name,
				Fields: []domain.FieldError{{Field: "patch", Reason: "cannot apply: " + err.Error()}}}
		}
		var out corev1.ConfigMap
		if err := decodePatched(patched, &out, strict); err != nil {
			return domain.UpdateConfigMap{}, err
		}
		rv, err := patchedIdentity("ConfigMap", cur.Name, cur.Namespace, out.ObjectMeta)
		if err != nil {
			return domain.UpdateConfigMap{}, err
		}
		return domain.UpdateConfigMap{Content: conversions.ConfigMapFromAPI(out), ResourceVersion: rv}, nil
	}
}

package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestStrictPatchesRefuseUnknownFields: with fieldValidation=Strict
// (kubectl apply's default) a patch that adds a field the kind does not
// have is a 400 naming it, and nothing is appended; without it the field
// is dropped, as kube-apiserver does.
func TestStrictPatchesRefuseUnknownFields(t *testing.T) {
	api, base := newValidationAPI(t)
	for _, tc := range []struct {
		name, path, contentType, patch, unknown string
	}{
		{"ConfigMap, merge patch", validationCM + "/cfg", "application/merge-patch+json", `{"dta":{"a":"c"}}`, "dta"},
		{"ConfigMap, strategic merge patch", validationCM + "/cfg", "application/strategic-merge-patch+json", `{"metadata":{"lables":{"a":"b"}}}`, "lables"},
		{"node, JSON patch", "/api/v1/nodes/web-01", "application/json-patch+json", `[{"op":"add","path":"/spec/unschedulabel","value":true}]`, "unschedulabel"},
		{"pod, merge patch", validationPod + "/web", "application/merge-patch+json", `{"spec":{"nodeSelectr":{"disk":"ssd"}}}`, "nodeSelectr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, nil, base, req{method: "PATCH", path: tc.path + "?fieldValidation=Strict", contentType: tc.contentType, body: tc.patch})
			if a.code != http.StatusBadRequest {
				t.Fatalf("strict: %d %s, want 400", a.code, a.body)
			}
			if _, msg := a.status(t); !strings.Contains(msg, `unknown field "`) || !strings.Contains(msg, tc.unknown) {
				t.Errorf("strict: %q does not name the unknown field %s", msg, tc.unknown)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused patch moved the log from %d to %d", before, after)
			}
			if a := send(t, nil, base, req{method: "PATCH", path: tc.path, contentType: tc.contentType, body: tc.patch}); a.code != http.StatusOK {
				t.Errorf("without Strict: %d %s, want 200 with the field dropped", a.code, a.body)
			}
		})
	}
}

package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// copyBomb is a JSON patch of n copies of /data into itself: each doubles
// the document, so a kilobyte asks for 2^n times the data.
func copyBomb(n int) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i)
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// TestAJSONPatchIsBounded: a patch whose copies would grow the object
// past kube-apiserver's 3 MiB, or that has more than 10,000 operations,
// is refused as kube-apiserver refuses it, on ConfigMaps (an admin), a
// node's own lease and its pods' status (a node's token), before anything
// is written.
func TestAJSONPatchIsBounded(t *testing.T) {
	api, base := newAuthAPI(t)
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", token: "pico1-token", body: nodeJSON("pico-01")})
	lease := "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: lease, token: "pico1-token",
		body: `{"metadata":{"name":"pico-01","labels":{"big":"` + strings.Repeat("x", 60) + `"}},"spec":{"holderIdentity":"pico-01"}}`})
	manyOps := "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/metadata/name","value":"pico-config"},`, maxJSONPatchOperations+1), ",") + "]"
	leaseBomb := strings.ReplaceAll(copyBomb(40), "/data", "/metadata/labels")
	tests := []struct {
		name, path, token, body string
		code                    int
	}{
		{"copies of a ConfigMap's data into itself", cmPath + "/pico-config", "admin-token", copyBomb(40), http.StatusUnprocessableEntity},
		{"copies of a node's own lease into itself", lease + "/pico-01", "pico1-token", leaseBomb, http.StatusUnprocessableEntity},
		{"too many operations", cmPath + "/pico-config", "admin-token", manyOps, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, nil, base, req{method: "PATCH", path: tt.path, token: tt.token, contentType: jsonPatch, body: tt.body})
			if a.code != tt.code {
				t.Fatalf("%d %s, want %d", a.code, a.body, tt.code)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused patch moved the log from %d to %d", before, after)
			}
		})
	}
	// A patch within the limits still applies.
	mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: cmPath + "/pico-config", token: "admin-token", contentType: jsonPatch,
		body: `[{"op":"copy","from":"/data/interval","path":"/data/again"}]`})
}

package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// refusal is a request a kind's refusals test sends: answered with code,
// its message saying want, and the log not moving.
type refusal struct {
	name string
	rq   req
	code int
	want string
}

// refusalsFixture is what a kind's refusals test starts from: an object
// created and then changed, so that its body as created is stale.
type refusalsFixture struct {
	api  *testAPI
	base string
	// stale is the object's body as created, before the change, and
	// staleVersion its resourceVersion.
	stale        []byte
	staleVersion string
	// head is the log's head once the object is changed.
	head int64
}

// changedObject creates the object of body at path and changes it by the
// merge patch change at path/name.
func changedObject(t *testing.T, path, name, body, change string) refusalsFixture {
	t.Helper()
	f := refusalsFixture{api: newTestAPI(t, nil)}
	f.base = f.api.serve(t).URL
	f.stale = mustSend(t, nil, f.base, http.StatusCreated, req{method: "POST", path: path, body: body}).body
	var meta metav1.PartialObjectMetadata
	if err := json.Unmarshal(f.stale, &meta); err != nil {
		t.Fatal(err)
	}
	f.staleVersion = meta.ResourceVersion
	mustSend(t, nil, f.base, http.StatusOK, req{method: "PATCH", path: path + "/" + name, contentType: mergePatch, body: change})
	f.head = f.api.head(t)
	return f
}

// refuse sends each refusal, each answered as it says and leaving the
// log at the fixture's head.
func (f refusalsFixture) refuse(t *testing.T, refusals []refusal) {
	t.Helper()
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) { refusedLeavingTheLog(t, f.api, f.base, r.code, r.rq, r.want, f.head) })
	}
}

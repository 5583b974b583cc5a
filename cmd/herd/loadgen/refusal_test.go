package loadgen

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestARefusalSaysWhatHerdSaid: the first error of a phase quotes the
// Status herd answered, in the encoding it came in — a kubelet asks in
// protobuf, so its refusals come in protobuf — and the body as text
// when it is no Status.
func TestARefusalSaysWhatHerdSaid(t *testing.T) {
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Message: "too many writes at once", Reason: metav1.StatusReasonTooManyRequests, Code: http.StatusTooManyRequests}
	for _, mt := range []string{runtime.ContentTypeProtobuf, runtime.ContentTypeJSON, runtime.ContentTypeCBOR} {
		body, err := encodeAs(mt, st)
		if err != nil {
			t.Fatal(err)
		}
		e := &httpError{method: http.MethodPost, path: "/api/v1/nodes", status: http.StatusTooManyRequests, body: string(body), contentType: mt}
		if got, want := e.Error(), "POST /api/v1/nodes: Too Many Requests: too many writes at once"; got != want {
			t.Errorf("%s: %q, want %q", mt, got, want)
		}
	}
	e := &httpError{method: http.MethodGet, path: "/x", status: http.StatusBadGateway, body: "upstream down\n", contentType: "text/plain; charset=utf-8"}
	if got := e.Error(); !strings.HasSuffix(got, ": Bad Gateway: upstream down") {
		t.Errorf("a plain answer: %q", got)
	}
}

package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestAQueryThatDoesNotParseIsRefused: Go's parser drops every parameter
// of a query with more than 10,000 of them; herd answers 400 instead of
// acting on no parameters at all (a dry run that writes, a selector that
// selects everything), and writes nothing.
func TestAQueryThatDoesNotParseIsRefused(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	junk := strings.Repeat("&junk=1", 10001)
	tests := []struct{ name, method, path, body string }{
		{"a dry run", "POST", cmPath + "?dryRun=All" + junk, `{"metadata":{"name":"dry"}}`},
		{"a filtered list", "GET", "/api/v1/nodes?labelSelector=a%3Db" + junk, ""},
		{"a malformed escape", "GET", "/api/v1/nodes?labelSelector=%zz", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, nil, base, req{method: tt.method, path: tt.path, body: tt.body})
			if a.code != http.StatusBadRequest {
				t.Fatalf("%d %s, want 400", a.code, a.body)
			}
			if _, msg := a.status(t); !strings.Contains(msg, "query string does not parse") {
				t.Errorf("message %q", msg)
			}
			if after := api.head(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
		})
	}
}

// TestXRequestIdIsBounded: a client's X-Request-Id becomes the correlation
// id of every event its request causes, so one that breaks
// kube-apiserver's Audit-ID rule (too long, or not letters and digits
// between hyphens) is refused before anything is written; a sane one is
// echoed.
func TestXRequestIdIsBounded(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	post := func(id string) (int, http.Header) {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), "POST", base+cmPath, strings.NewReader(`{"metadata":{"name":"c-`+fmt.Sprint(len(id))+`"}}`))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Request-Id", id)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	for _, id := range []string{strings.Repeat("x", 600_000), strings.Repeat("y", maxRequestIDLength+1), "two words", "tab\there", "-leading", "under_score"} {
		before := api.head(t)
		if code, _ := post(id); code != http.StatusBadRequest {
			t.Errorf("an X-Request-Id of %d bytes: %d, want 400", len(id), code)
		}
		if after := api.head(t); after != before {
			t.Errorf("the log moved from %d to %d", before, after)
		}
	}
	id := "0af7651916cd43dd8448eb211c80319c-" + strings.Repeat("z", maxRequestIDLength-33)
	if len(id) != maxRequestIDLength {
		t.Fatalf("the test's id is %d long", len(id))
	}
	if code, header := post(id); code != http.StatusCreated || header.Get("X-Request-Id") != id {
		t.Errorf("a sane X-Request-Id: %d, echoed %q", code, header.Get("X-Request-Id"))
	}
}

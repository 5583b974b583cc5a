package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// fakeUI stands for the web view's assets (adapters/webui), which the
// API mounts but does not know.
var fakeUI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	_, _ = w.Write([]byte("the page at " + r.URL.Path))
})

// TestTheWebViewIsServedToAnyoneAndItsDataOnlyWithAToken: with tokens on,
// the web view's page and assets answer without a token (the page asks
// for one), a browser at / is sent to it, an API client at / keeps its
// 404, and everything else still needs a token.
func TestTheWebViewIsServedToAnyoneAndItsDataOnlyWithAToken(t *testing.T) {
	_, base := newAuthAPI(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path, accept, token string) (int, http.Header) {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := noRedirect.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	const browser = "text/html,application/xhtml+xml,*/*;q=0.8"
	for _, tc := range []struct {
		name, path, accept, token string
		want                      int
		location                  string
	}{
		{name: "the page, without a token", path: "/ui/", accept: browser, want: http.StatusOK},
		{name: "an asset, without a token", path: "/ui/app.js", want: http.StatusOK},
		{name: "the page, with a viewer's token", path: "/ui/", accept: browser, token: "viewer-token", want: http.StatusOK},
		{name: "a browser at /", path: "/", accept: browser, want: http.StatusFound, location: "/ui/"},
		{name: "an API client at /", path: "/", accept: "application/json", want: http.StatusNotFound},
		{name: "the API, without a token", path: "/api/v1/nodes", accept: "application/json", want: http.StatusUnauthorized},
		{name: "a path beside the page, without a token", path: "/uix", accept: browser, want: http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, header := get(tc.path, tc.accept, tc.token)
			if code != tc.want {
				t.Errorf("GET %s: %d, want %d", tc.path, code, tc.want)
			}
			if loc := header.Get("Location"); loc != tc.location {
				t.Errorf("GET %s: Location %q, want %q", tc.path, loc, tc.location)
			}
		})
	}
	// Only reads are public: a write to the page's path needs a token.
	a := send(t, nil, base, req{method: "POST", path: "/ui/", body: "{}"})
	if a.code != http.StatusUnauthorized || !strings.Contains(string(a.body), "Unauthorized") {
		t.Errorf("POST /ui/ without a token: %d %s, want 401", a.code, a.body)
	}
}

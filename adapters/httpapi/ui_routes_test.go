package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeUI stands for the web view's assets (adapters/webui), which the
// API mounts but does not know.
var fakeUI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	_, _ = w.Write([]byte("the page at " + r.URL.Path))
})

// TestTheWebViewIsServedToAnyoneAndItsDataOnlyWithAToken: with tokens on,
// the web view's page and assets answer without a token (the page asks
// for one), a browser at / is sent to it, any other client at / is told
// what is here, and everything else still needs a token.
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
		{name: "an API client at /", path: "/", accept: "application/json", want: http.StatusOK},
		{name: "curl at /", path: "/", accept: "*/*", want: http.StatusOK},
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

// TestRootSaysWhatIsServed: / over HTTP, without a token, tells curl in
// plain text where the web view and the API are, gives a client asking
// for JSON the paths served (as kube-apiserver's / does), and sends a
// browser to the web view.
func TestRootSaysWhatIsServed(t *testing.T) {
	_, base := newAuthAPI(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// answer is what get keeps of a response: its body read and closed.
	type answer struct {
		StatusCode int
		Header     http.Header
	}
	get := func(accept string) (answer, string) {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Accept", accept)
		resp, err := noRedirect.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close() //nolint:errcheck // read whole below
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return answer{resp.StatusCode, resp.Header}, string(body)
	}

	resp, body := get("*/*") // curl's
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("curl at /: %d %s, want 200 text/plain\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	for _, want := range []string{UIPath, "/api/v1", "/apis", "/healthz"} {
		if !strings.Contains(body, want) {
			t.Errorf("curl at / is not told of %s:\n%s", want, body)
		}
	}

	resp, body = get("application/json, */*") // kubectl get --raw /
	var paths metav1.RootPaths
	if err := json.Unmarshal([]byte(body), &paths); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("JSON at /: %d %v\n%s", resp.StatusCode, err, body)
	}
	for _, want := range []string{"/api", "/apis", "/version", UIPath} {
		if !slices.Contains(paths.Paths, want) {
			t.Errorf("/ lists %v, without %s", paths.Paths, want)
		}
	}

	resp, _ = get("text/html,application/xhtml+xml,*/*;q=0.8")
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != UIPath {
		t.Errorf("a browser at /: %d to %q, want 302 to %s", resp.StatusCode, resp.Header.Get("Location"), UIPath)
	}
}

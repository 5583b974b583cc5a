package webui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// built skips a test when the bundle was not built (a bare `go test`
// without `make ui`), unless the run requires it as `make test` does.
func built(t *testing.T) {
	t.Helper()
	if _, err := dist.ReadFile("dist/index.html"); err != nil {
		if os.Getenv("HERD_REQUIRE_BROWSER") == "1" {
			t.Fatal("the web view's bundle is not built (make ui)")
		}
		t.Skip("the web view's bundle is not built (make ui)")
	}
}

func TestHandlerServesTheBundle(t *testing.T) {
	built(t)
	srv := httptest.NewServer(Handler("/ui/"))
	t.Cleanup(srv.Close)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path, etag string) (int, http.Header, string) {
		t.Helper()
		r, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
		if etag != "" {
			r.Header.Set("If-None-Match", etag)
		}
		resp, err := noRedirect.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(body)
	}
	for _, tc := range []struct {
		name, path, wantType, wantBody string
		want                           int
	}{
		{name: "the page", path: "/ui/", want: 200, wantType: "text/html", wantBody: `<script src="app.js">`},
		{name: "the script", path: "/ui/app.js", want: 200, wantType: "text/javascript"},
		{name: "the style sheet", path: "/ui/app.css", want: 200, wantType: "text/css"},
		{name: "no such asset", path: "/ui/secret.txt", want: 404},
		{name: "the placeholder the bundle directory keeps", path: "/ui/.keep", want: 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, header, body := get(tc.path, "")
			if code != tc.want {
				t.Fatalf("GET %s: %d, want %d", tc.path, code, tc.want)
			}
			if tc.want != 200 {
				return
			}
			if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, tc.wantType) {
				t.Errorf("Content-Type %q, want %s", ct, tc.wantType)
			}
			if !strings.Contains(body, tc.wantBody) {
				t.Errorf("body lacks %q", tc.wantBody)
			}
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "ETag"} {
				if header.Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
			// Unchanged, it is answered 304 without a body.
			again, _, body := get(tc.path, header.Get("ETag"))
			if again != http.StatusNotModified || body != "" {
				t.Errorf("GET %s again with its ETag: %d, %d bytes; want 304 and none", tc.path, again, len(body))
			}
		})
	}
	if code, header, _ := get("/ui", ""); code != http.StatusMovedPermanently || header.Get("Location") != "/ui/" {
		t.Errorf("GET /ui: %d to %q, want 301 to /ui/", code, header.Get("Location"))
	}
}

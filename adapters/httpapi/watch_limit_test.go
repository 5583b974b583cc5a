package httpapi

import (
	"net/http"
	"testing"
	"time"
)

// openWatch starts a watch of nodes with token and returns the answer,
// whose body stays open until the test closes it.
func openWatch(t *testing.T, base, token string) *http.Response {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), "GET", base+"/api/v1/nodes?watch=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestWatchesPerUserAreBounded: a user past the bound on open watches
// gets 429 with Retry-After, as kube-apiserver sheds load, while a node's
// heartbeat and another user's watch are still answered; a watch closed
// frees its place.
func TestWatchesPerUserAreBounded(t *testing.T) {
	api, base := newAuthAPI(t)
	api.watches = newWatchLimiter(3)
	var open []*http.Response
	for range 3 {
		resp := openWatch(t, base, "viewer-token") //nolint:bodyclose // openWatch closes it at cleanup
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("watch %d: %d, want 200", len(open)+1, resp.StatusCode)
		}
		open = append(open, resp) //nolint:bodyclose // openWatch closes it at cleanup
	}
	over := openWatch(t, base, "viewer-token") //nolint:bodyclose // openWatch closes it at cleanup
	if over.StatusCode != http.StatusTooManyRequests || over.Header.Get("Retry-After") != "1" {
		t.Fatalf("a fourth watch: %d Retry-After %q, want 429 and 1", over.StatusCode, over.Header.Get("Retry-After"))
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: "/api/v1/nodes/pico-02/status", token: "pico2-token",
		contentType: mergePatch, body: readyPatch})
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/readyz"})
	if other := openWatch(t, base, "admin-token"); other.StatusCode != http.StatusOK { //nolint:bodyclose // openWatch closes it at cleanup
		t.Fatalf("another user's watch: %d, want 200", other.StatusCode)
	}
	_ = open[0].Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := openWatch(t, base, "viewer-token")
		if resp.StatusCode == http.StatusOK {
			break
		}
		_ = resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("a watch closed did not free its place: %d", resp.StatusCode)
		}
	}
}

package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
)

// attackPage is a page of another origin that tries every write a
// browser sends across origins without asking first: fetches in no-cors
// mode as text/plain, as a form, with no type at all, and a form posted
// as text/plain; window.attacked says when all have been sent.
const attackPage = `<!doctype html>
<form id="f" method="POST" action="HERD/apis/herd.dev/v1/nodes/victim/drain" enctype="text/plain" target="sink">
<input name='{"gracePeriodSeconds":0,"x":"' value='"}'></form>
<iframe name="sink" id="sink"></iframe>
<script>
const herd = "HERD", node = herd + "/apis/herd.dev/v1/nodes/victim";
async function attack() {
  const tries = [
    [node + "/drain", {"Content-Type": "text/plain"}, '{}'],
    [node + "/drain", {"Content-Type": "application/x-www-form-urlencoded"}, 'a=b'],
    [node + "/taints", {"Content-Type": "text/plain"}, '{"key":"evil","effect":"NoExecute"}'],
    [node + "/drain", {}, new Blob(['{}'])],
    [node + "/taints", {}, new Blob(['{"key":"evil","effect":"NoExecute"}'])],
  ];
  for (const [url, headers, body] of tries) {
    try { await fetch(url, {method: "POST", mode: "no-cors", headers, body}); } catch (e) {}
  }
  await new Promise(done => {
    document.getElementById("sink").onload = done;
    document.getElementById("f").submit();
  });
  window.attacked = true;
}
attack();
</script>`

// victimState is whether the node is cordoned and how many taints it has.
func victimState(t *testing.T, base string) (bool, int) {
	t.Helper()
	var n corev1.Node
	if err := json.Unmarshal(mustCall(t, http.StatusOK, "GET", base+"/api/v1/nodes/victim", nil, nil), &n); err != nil {
		t.Fatal(err)
	}
	return n.Spec.Unschedulable, len(n.Spec.Taints)
}

// TestBrowsersElsewhereCannotChangeAnAnonymousHerd: against a herd
// without credentials (the quickstart), a page served from another
// loopback origin posts drains and taints every way a browser allows
// without a preflight, and a page under a name rebound to herd's address
// tries from herd's own origin: the node stays as it was. herd's own web
// view, same origin, still writes.
func TestBrowsersElsewhereCannotChangeAnAnonymousHerd(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t, chromedp.Flag("host-resolver-rules", "MAP rebound.test 127.0.0.1"))
	srv := startServe(t, serveOptions{})
	mustCall(t, http.StatusCreated, "POST", srv.URL+"/api/v1/nodes", json.RawMessage(`{"metadata":{"name":"victim"}}`), nil)

	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 to serve the other origin from: %v", err)
	}
	page := strings.ReplaceAll(attackPage, "HERD", srv.URL)
	other := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
	})}}
	other.Start()
	t.Cleanup(other.Close)

	browse(t, tab, "open the other origin's page", chromedp.Navigate(other.URL+"/"), waitFor(`window.attacked === true`))
	if cordoned, taints := victimState(t, srv.URL); cordoned || taints != 0 {
		t.Fatalf("a page of %s changed the node: cordoned %v, %d taints", other.URL, cordoned, taints)
	}

	// DNS rebinding: a name the attacker controls now resolves to herd's
	// address, so the page's own origin is herd's host and port.
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	rebound := "http://rebound.test:" + port
	browse(t, tab, "open herd under a rebound name", chromedp.Navigate(rebound+"/ui/"))
	code := read(t, tab, "drain from the rebound origin", evaluate[float64](
		`fetch("/apis/herd.dev/v1/nodes/victim/drain", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"}).then(r => r.status)`))
	if code != http.StatusForbidden {
		t.Errorf("a drain under the rebound name %s answered %v, want 403", rebound, code)
	}
	if cordoned, taints := victimState(t, srv.URL); cordoned || taints != 0 {
		t.Fatalf("a page under %s changed the node: cordoned %v, %d taints", rebound, cordoned, taints)
	}

	// herd's own page, same origin, writes as it always did.
	browse(t, tab, "open herd's web view", chromedp.Navigate(srv.URL+"/ui/"))
	code = read(t, tab, "drain from herd's own origin", evaluate[float64](
		`fetch("/apis/herd.dev/v1/nodes/victim/drain", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"}).then(r => r.status)`))
	if code != http.StatusOK {
		t.Fatalf("a same-origin drain answered %v, want 200", code)
	}
	if cordoned, _ := victimState(t, srv.URL); !cordoned {
		t.Fatal("the same-origin drain did not cordon the node")
	}
}

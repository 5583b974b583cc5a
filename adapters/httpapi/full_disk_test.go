package httpapi

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"herd/events/eventstest"
)

// TestReadyzSaysWhenTheLogCannotBeWritten: with the disk full, a write is
// a 500 that names the cause and nothing is acknowledged; /readyz turns
// 503 and says why and since when, though the log still answers reads;
// once room is back /readyz is 200 again by itself, with no write from
// anyone, and the next write succeeds.
func TestReadyzSaysWhenTheLogCannotBeWritten(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	big := strings.Repeat("x", 256<<10)
	create := func(name string) answer {
		return send(t, nil, base, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"` + name + `"},"data":{"big":"` + big + `"}}`})
	}
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"before"}}`})
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/readyz"})

	free, err := eventstest.FillDisk(t.Context(), api.store)
	if err != nil {
		t.Fatal(err)
	}
	before := api.head(t)
	if a := create("during"); a.code != http.StatusInternalServerError || !strings.Contains(string(a.body), "database or disk is full") {
		t.Fatalf("a write on a full disk: %d %s, want 500 naming the full disk", a.code, a.body)
	}
	if after := api.head(t); after != before {
		t.Errorf("the log moved from %d to %d on a full disk", before, after)
	}
	a := send(t, nil, base, req{method: "GET", path: "/readyz"})
	if a.code != http.StatusServiceUnavailable || !strings.Contains(string(a.body), "cannot be written since") || !strings.Contains(string(a.body), "database or disk is full") {
		t.Fatalf("/readyz on a full disk: %d %s", a.code, a.body)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: cmPath + "/before"})

	if err := free(); err != nil {
		t.Fatal(err)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		return send(t, nil, base, req{method: "GET", path: "/readyz"}).code == http.StatusOK
	}, "/readyz did not come back once room was back")
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"after"}}`})
}

// TestReadyzWaitsUntilHerdHasStarted: the API listens before herd's last
// start steps (the kubeconfig it writes) have run; until they have,
// /readyz is 503 and says herd is still starting, though /healthz and
// the API answer, and then it is 200.
func TestReadyzWaitsUntilHerdHasStarted(t *testing.T) {
	var started atomic.Bool
	api := newTestAPI(t, nil)
	api.Started = started.Load
	base := api.serve(t).URL
	a := send(t, nil, base, req{method: "GET", path: "/readyz"})
	if a.code != http.StatusServiceUnavailable || !strings.Contains(string(a.body), "[-]started failed: herd is still starting") {
		t.Fatalf("/readyz while herd is starting: %d %s, want 503 saying it is still starting", a.code, a.body)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/healthz"})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"early"}}`})
	started.Store(true)
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/readyz"})
}

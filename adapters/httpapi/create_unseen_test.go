package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestACreateOfANameHerdHasNotSeenIsRefusedWhenItExists: herd decides the
// create of a Node or a Lease it remembers no commit of without reading a
// row, on the name as new; a second herd on the same SQLite file (as after
// a restart, its memory empty) that is asked to create a name the first
// created refuses it with 409 AlreadyExists and writes nothing, a PUT
// renews the lease the first created instead of answering 404, and the
// GET shows the first's object.
func TestACreateOfANameHerdHasNotSeenIsRefusedWhenItExists(t *testing.T) {
	first := newTestAPI(t, nil)
	base := first.serve(t).URL
	var node corev1.Node
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusCreated,
		req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")}).body, &node); err != nil {
		t.Fatal(err)
	}
	var lease coordinationv1.Lease
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusCreated,
		req{method: "POST", path: leasesPath, body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:00.000000Z")}).body, &lease); err != nil {
		t.Fatal(err)
	}

	second := newTestAPIOn(t, first.store.Log(), nil)
	second.store = first.store
	other := second.serve(t).URL
	head := second.head(t)
	for _, rq := range []req{
		{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")},
		{method: "POST", path: leasesPath, body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:10.000000Z")},
	} {
		a := mustSend(t, nil, other, http.StatusConflict, rq)
		if reason, _ := a.status(t); reason != "AlreadyExists" {
			t.Errorf("%s %s again: reason %s, want AlreadyExists", rq.method, rq.path, reason)
		}
	}
	if got := second.head(t); got != head {
		t.Fatalf("the refused creates moved the log from %d to %d", head, got)
	}
	recs, err := first.store.Log().ReadStream(t.Context(), "node/pico-01", 0)
	if err != nil {
		t.Fatal(err)
	}
	registrations := 0
	for _, r := range recs {
		if r.Type == "NodeRegistered" {
			registrations++
		}
	}
	if registrations != 1 {
		t.Errorf("node/pico-01 holds %d registrations, want one", registrations)
	}

	var got corev1.Node
	if err := json.Unmarshal(mustSend(t, nil, other, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/pico-01"}).body, &got); err != nil {
		t.Fatal(err)
	}
	if got.UID != node.UID {
		t.Errorf("the node as the second herd shows it has UID %s, want the first's %s", got.UID, node.UID)
	}
	body, err := json.Marshal(lease)
	if err != nil {
		t.Fatal(err)
	}
	var renewed coordinationv1.Lease
	if err := json.Unmarshal(mustSend(t, nil, other, http.StatusOK,
		req{method: "PUT", path: leasesPath + "/pico-01", body: string(body)}).body, &renewed); err != nil {
		t.Fatal(err)
	}
	if renewed.UID != lease.UID {
		t.Errorf("the lease the second herd renewed has UID %s, want the first's %s", renewed.UID, lease.UID)
	}
}

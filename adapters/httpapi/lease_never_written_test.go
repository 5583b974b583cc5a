package httpapi

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestALeaseHerdNeverWroteIsNotFoundWithoutAStatement: on SQLite a
// kubelet's first lease GET, for a name herd never wrote, is answered
// 404 from what herd committed: with the leases table gone from under
// it, it still is. A lease created, one deleted and one created again
// are answered as they stand.
func TestALeaseHerdNeverWroteIsNotFoundWithoutAStatement(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	const renew = "2026-03-01T09:00:00.000000Z"
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("kept", renew)})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("gone", renew)})
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: leasesPath + "/gone"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: leasesPath + "/first"})

	exec := func(stmt string) {
		t.Helper()
		if _, err := api.store.DB().ExecContext(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER TABLE leases RENAME TO leases_away`)
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: leasesPath + "/fresh"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/fresh"})
	exec(`ALTER TABLE leases_away RENAME TO leases`)

	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: leasesPath + "/kept"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: leasesPath + "/gone"})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("fresh", renew)})
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: leasesPath + "/fresh"})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("gone", renew)})
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: leasesPath + "/gone"})
}

// TestAKubeletsFirstLeasePutReadsNoRow: the PUT with which a kubelet
// first renews the lease herd derived from its node, on a name herd never
// wrote a lease for, stores the lease without trying the update first
// (which would read the lease's row, only to be refused "not found"): a
// row planted under it behind herd's back is not read. A PUT of a lease
// herd neither wrote nor derives is refused 404, and a dry run is
// answered without storing anything.
func TestAKubeletsFirstLeasePutReadsNoRow(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	const renew = "2026-03-01T09:00:00.000000Z"
	mustSend(t, nil, base, http.StatusNotFound, req{method: "PUT", path: leasesPath + "/planted", body: nodeLeaseJSON("planted", renew)})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("planted")})
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: leasesPath + "/planted"})
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: leasesPath + "/planted?dryRun=All", body: nodeLeaseJSON("planted", renew)})
	if _, err := api.LeaseView.Get(t.Context(), "kube-node-lease", "planted"); err == nil {
		t.Fatal("a dry run stored the lease")
	}
	if _, err := api.store.DB().ExecContext(t.Context(), `INSERT INTO leases (namespace, name, deleted, version, resource_version, data, renewed_at)
VALUES ('kube-node-lease', 'planted', 0, 7, 7, '{"namespace":"kube-node-lease","name":"planted","version":7,"resourceVersion":7}', 0)`); err != nil {
		t.Fatal(err)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: leasesPath + "/planted", body: nodeLeaseJSON("planted", renew)})
	l, err := api.LeaseView.Get(t.Context(), "kube-node-lease", "planted")
	if err != nil || l.Version != 1 || l.Spec.HolderIdentity != "planted" {
		t.Fatalf("the lease the PUT stored: %+v, %v; want it created at version 1", l, err)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: leasesPath + "/planted", body: nodeLeaseJSON("planted", "2026-03-01T09:00:10.000000Z")})
}

// TestLeasesWrittenBeforeARestartAreFound: a herd started on a SQLite
// file with leases in it (a restart) finds every one of them, deleted
// ones answered 404 from their rows, before it wrote anything itself.
func TestLeasesWrittenBeforeARestartAreFound(t *testing.T) {
	before := newTestAPI(t, nil)
	base := before.serve(t).URL
	const renew = "2026-03-01T09:00:00.000000Z"
	for i := range 3 {
		mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON(fmt.Sprintf("n-%d", i), renew)})
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: leasesPath + "/n-2"})

	after := newTestAPIOn(t, before.store.Log(), nil).serve(t).URL
	mustSend(t, nil, after, http.StatusOK, req{method: "GET", path: leasesPath + "/n-0"})
	mustSend(t, nil, after, http.StatusOK, req{method: "GET", path: leasesPath + "/n-1"})
	mustSend(t, nil, after, http.StatusNotFound, req{method: "GET", path: leasesPath + "/n-2"})
	mustSend(t, nil, after, http.StatusNotFound, req{method: "GET", path: leasesPath + "/n-3"})
}

// TestALeaseCreatedIsNeverAnsweredNotFoundAfter: kubelets registering at
// once each read their lease (404), create it and read it again; once
// its creation was answered, no read of it answers 404, while other
// leases are being created and the first reads learn what herd wrote.
func TestALeaseCreatedIsNeverAnsweredNotFoundAfter(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	const kubelets = 32
	var wg sync.WaitGroup
	for i := range kubelets {
		wg.Go(func() {
			name := fmt.Sprintf("n-%02d", i)
			if a := send(t, nil, base, req{method: "GET", path: leasesPath + "/" + name}); a.code != http.StatusNotFound {
				t.Errorf("first read of %s: %d %s", name, a.code, a.body)
			}
			if a := send(t, nil, base, req{method: "POST", path: leasesPath, body: nodeLeaseJSON(name, "2026-03-01T09:00:00.000000Z")}); a.code != http.StatusCreated {
				t.Errorf("creation of %s: %d %s", name, a.code, a.body)
				return
			}
			for range 3 {
				if a := send(t, nil, base, req{method: "GET", path: leasesPath + "/" + name}); a.code != http.StatusOK {
					t.Errorf("read of %s after its creation: %d %s", name, a.code, a.body)
				}
			}
		})
	}
	wg.Wait()
}

// TestALeaseAnotherReplicaCreatedIsFound: on PostgreSQL another herd
// replica may create a lease this one never wrote; this one reads it
// from its row, having answered 404 for it a moment before.
func TestALeaseAnotherReplicaCreatedIsFound(t *testing.T) {
	url := pgtest.URL(t)
	a := newTestAPIOn(t, eventstest.OpenPostgres(t, url), nil).serve(t).URL
	b := newTestAPIOn(t, eventstest.OpenPostgres(t, url), nil).serve(t).URL
	mustSend(t, nil, a, http.StatusNotFound, req{method: "GET", path: leasesPath + "/n-0"})
	mustSend(t, nil, b, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("n-0", "2026-03-01T09:00:00.000000Z")})
	mustSend(t, nil, a, http.StatusOK, req{method: "GET", path: leasesPath + "/n-0"})
	mustSend(t, nil, a, http.StatusNotFound, req{method: "GET", path: leasesPath + "/n-1"})
	mustSend(t, nil, b, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("n-1", "2026-03-01T09:00:00.000000Z")})
	mustSend(t, nil, a, http.StatusOK, req{method: "GET", path: leasesPath + "/n-1"})
	// A PUT on this replica of the lease the other created renews it.
	mustSend(t, nil, a, http.StatusOK, req{method: "PUT", path: leasesPath + "/n-1", body: nodeLeaseJSON("n-1", "2026-03-01T09:00:10.000000Z")})
}

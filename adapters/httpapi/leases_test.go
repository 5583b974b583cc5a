package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
	"herd/projections/watch"
)

const leasesPath = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"

// nodeLeaseJSON is the lease a kubelet keeps for its node, renewed at
// renew.
func nodeLeaseJSON(node, renew string) string {
	return `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"` + node + `","namespace":"kube-node-lease"},` +
		`"spec":{"holderIdentity":"` + node + `","leaseDurationSeconds":40,"renewTime":"` + renew + `"}}`
}

// TestLeaseLifecycle: a lease is created, read, renewed with a PUT,
// patched three ways, listed, shown as kubectl shows it, and deleted; a
// renewal of a node's lease is the node's heartbeat, kept with the lease.
func TestLeaseLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})

	var l coordinationv1.Lease
	a := mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:00.000000Z")})
	if err := json.Unmarshal(a.body, &l); err != nil {
		t.Fatal(err)
	}
	if l.Name != "pico-01" || *l.Spec.HolderIdentity != "pico-01" || *l.Spec.LeaseDurationSeconds != 40 || l.UID == "" {
		t.Fatalf("created lease %+v", l)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: leasesPath, body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:00.000000Z")})

	// The kubelet renews: a PUT moving only renewTime, 30 s later.
	api.clock.Step(30 * time.Second)
	l.Spec.RenewTime = &metav1.MicroTime{Time: t0.Add(30 * time.Second)}
	body, _ := json.Marshal(l)
	a = mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: leasesPath + "/pico-01", body: string(body)})
	var renewed coordinationv1.Lease
	if err := json.Unmarshal(a.body, &renewed); err != nil {
		t.Fatal(err)
	}
	if !renewed.Spec.RenewTime.Time.Equal(t0.Add(30*time.Second)) || renewed.ResourceVersion == l.ResourceVersion {
		t.Fatalf("renewed lease %+v", renewed)
	}
	var read coordinationv1.Lease
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: leasesPath + "/pico-01"}).body, &read); err != nil {
		t.Fatal(err)
	}
	if !read.Spec.RenewTime.Time.Equal(renewed.Spec.RenewTime.Time) || read.ResourceVersion != renewed.ResourceVersion {
		t.Errorf("GET after the renewal: renewTime %v, resourceVersion %s; want %v, %s", read.Spec.RenewTime, read.ResourceVersion, renewed.Spec.RenewTime, renewed.ResourceVersion)
	}
	// The renewal is the node's heartbeat by itself: herd heard from the
	// node then, and the node's own object did not move.
	if at, err := api.NodeView.NodeLeaseRenewedAt(t.Context(), "pico-01"); err != nil || !at.Equal(api.clock.Now()) {
		t.Errorf("node last heard by its lease at %v (%v), want the renewal's time %v", at, err, api.clock.Now())
	}
	// The stale version is refused.
	mustSend(t, nil, base, http.StatusConflict, req{method: "PUT", path: leasesPath + "/pico-01", body: string(body)})

	patches := []struct{ ct, body, holder string }{
		{mergePatch, `{"spec":{"holderIdentity":"a"}}`, "a"},
		{strategicPatch, `{"spec":{"holderIdentity":"b"}}`, "b"},
		{jsonPatch, `[{"op":"replace","path":"/spec/holderIdentity","value":"c"}]`, "c"},
	}
	for _, p := range patches {
		a = mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: leasesPath + "/pico-01", contentType: p.ct, body: p.body})
		var got coordinationv1.Lease
		if err := json.Unmarshal(a.body, &got); err != nil {
			t.Fatal(err)
		}
		if *got.Spec.HolderIdentity != p.holder {
			t.Errorf("%s: holder %q, want %q", p.ct, *got.Spec.HolderIdentity, p.holder)
		}
	}
	mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "PATCH", path: leasesPath + "/pico-01", contentType: mergePatch, body: `{"spec":{"leaseDurationSeconds":0}}`})
	mustSend(t, nil, base, http.StatusUnsupportedMediaType, req{method: "PATCH", path: leasesPath + "/pico-01", contentType: "application/apply-patch+yaml", body: `{}`})

	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/apis/coordination.k8s.io/v1/namespaces/default/leases", body: `{"metadata":{"name":"leader"},"spec":{"holderIdentity":"me"}}`})
	var list coordinationv1.LeaseList
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/apis/coordination.k8s.io/v1/leases"}).body, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[0].Name != "leader" || list.Items[1].Name != "pico-01" || list.Kind != "LeaseList" {
		t.Errorf("all leases: %+v", list)
	}

	tbl := tableOf(t, base, leasesPath)
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if strings.Join(cols, ",") != "Name,Holder,Age" || len(tbl.Rows) != 1 || tbl.Rows[0].Cells[0] != "pico-01" || tbl.Rows[0].Cells[1] != "c" {
		t.Errorf("table %v %+v", cols, tbl.Rows)
	}

	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/leader"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/leader"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "DELETE", path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/leader"})
}

// TestDerivedNodeLease: a node no client keeps a lease for (an agent's, a
// polled kubelet's) shows one derived from it, held by the node and
// renewed at its last heartbeat; a PUT of it creates the stored lease.
// A name that is no node has no lease.
func TestDerivedNodeLease(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: leasesPath + "/pico-01"})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})

	var l coordinationv1.Lease
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: leasesPath + "/pico-01"}).body, &l); err != nil {
		t.Fatal(err)
	}
	n, err := api.NodeView.Get(t.Context(), "pico-01")
	if err != nil {
		t.Fatal(err)
	}
	if *l.Spec.HolderIdentity != "pico-01" || *l.Spec.LeaseDurationSeconds != 40 || l.Spec.RenewTime == nil ||
		!l.Spec.RenewTime.Time.Equal(n.LastHeartbeat) || len(l.OwnerReferences) != 1 || l.OwnerReferences[0].Kind != "Node" {
		t.Fatalf("derived lease %+v", l)
	}
	// herd's node monitor grace period, when it is told it, is the lease's
	// duration: how long the node may stay silent.
	api.cfg.NodeMonitorGracePeriod = 2 * time.Second
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: leasesPath + "/pico-01"}).body, &l); err != nil {
		t.Fatal(err)
	}
	if *l.Spec.LeaseDurationSeconds != 2 {
		t.Errorf("derived lease lasts %d s, want herd's grace period of 2 s", *l.Spec.LeaseDurationSeconds)
	}
	if stored, err := api.LeaseView.Get(t.Context(), domain.NodeLeaseNamespace, "pico-01"); err == nil {
		t.Fatalf("the derived lease was stored: %+v", stored)
	}

	api.clock.Step(10 * time.Second)
	l.Spec.RenewTime = &metav1.MicroTime{Time: t0.Add(10 * time.Second)}
	body, _ := json.Marshal(l)
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: leasesPath + "/pico-01", body: string(body)})
	stored, err := api.LeaseView.Get(t.Context(), domain.NodeLeaseNamespace, "pico-01")
	if err != nil || stored.Spec.RenewTime == nil || !stored.Spec.RenewTime.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("stored lease %+v, %v", stored, err)
	}
}

// TestNodeTokenHoldsItsOwnLease: a node's token reads, creates and renews
// its own lease in kube-node-lease, and nothing else.
func TestNodeTokenHoldsItsOwnLease(t *testing.T) {
	_, base := newAuthAPI(t)
	own := leasesPath + "/pico-01"
	tests := []struct {
		name string
		rq   req
		code int
	}{
		{"creates its own", req{method: "POST", path: leasesPath, token: "pico1-token", body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:00.000000Z")}, 201},
		{"creates its own in protobuf (already there)", req{method: "POST", path: leasesPath, token: "pico1-token", contentType: protobufType,
			body: string(encode(t, protobufType, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "pico-01"}}))}, 409},
		{"creates no other's", req{method: "POST", path: leasesPath, token: "pico1-token", body: nodeLeaseJSON("pico-02", "2026-03-01T09:00:00.000000Z")}, 403},
		{"reads its own", req{method: "GET", path: own, token: "pico1-token"}, 200},
		{"renews its own", req{method: "PATCH", path: own, token: "pico1-token", contentType: mergePatch, body: `{"spec":{"renewTime":"2026-03-01T09:00:10.000000Z"}}`}, 200},
		{"renews its own with a PUT", req{method: "PUT", path: own, token: "pico1-token", body: nodeLeaseJSON("pico-01", "2026-03-01T09:00:20.000000Z")}, 200},
		{"reads no other's", req{method: "GET", path: leasesPath + "/pico-02", token: "pico1-token"}, 403},
		{"lists none", req{method: "GET", path: leasesPath, token: "pico1-token"}, 403},
		{"deletes not even its own", req{method: "DELETE", path: own, token: "pico1-token"}, 403},
		{"holds no lease elsewhere", req{method: "GET", path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/pico-01", token: "pico1-token"}, 403},
		{"viewer reads leases", req{method: "GET", path: leasesPath, token: "viewer-token"}, 200},
		{"viewer writes none", req{method: "DELETE", path: own, token: "viewer-token"}, 403},
		{"viewer reads namespaces", req{method: "GET", path: "/api/v1/namespaces", token: "viewer-token"}, 200},
		{"node creates no namespace", req{method: "POST", path: "/api/v1/namespaces", token: "pico1-token", body: `{"metadata":{"name":"x"}}`}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := send(t, nil, base, tt.rq)
			if a.code != tt.code {
				t.Errorf("%s %s: %d %s, want %d", tt.rq.method, tt.rq.path, a.code, a.body, tt.code)
			}
		})
	}
}

// TestLeasesInEveryEncoding: a lease round-trips in protobuf and CBOR, as
// client-go's typed clients send it, and its list comes back typed.
func TestLeasesInEveryEncoding(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	for _, mt := range encodings {
		t.Run(mt, func(t *testing.T) {
			name := "l-" + strings.NewReplacer("/", "-", ".", "-").Replace(mt)
			holder := "me"
			in := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
			path := "/apis/coordination.k8s.io/v1/namespaces/default/leases"
			e := exchange(t, a.url, "POST", path, mt, mt, encode(t, mt, in))
			want(t, e, http.StatusCreated)
			var l coordinationv1.Lease
			decode(t, e, mt, &l)
			if l.Name != name || *l.Spec.HolderIdentity != "me" {
				t.Fatalf("created %+v", l)
			}
			var list coordinationv1.LeaseList
			decode(t, exchange(t, a.url, "GET", path+"?fieldSelector=metadata.name="+name, "", mt, nil), mt, &list)
			if len(list.Items) != 1 || list.Items[0].Name != name {
				t.Fatalf("list %+v", list)
			}
		})
	}
}

// tableOf GETs path as kubectl get asks for it.
func tableOf(t *testing.T, base, path string) metav1.Table {
	t.Helper()
	r, _ := http.NewRequestWithContext(t.Context(), "GET", base+path, nil)
	r.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tbl metav1.Table
	if err := json.NewDecoder(resp.Body).Decode(&tbl); err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestLeaseDiscoveryAndOpenAPI: /apis lists coordination.k8s.io, its v1
// lists leases, and /openapi/v3 points kubectl to a document that knows
// the Lease kind, which kubectl needs before it creates one from a file.
func TestLeaseDiscoveryAndOpenAPI(t *testing.T) {
	base := newTestAPI(t, nil).serve(t).URL
	var groups metav1.APIGroupList
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/apis"}).body, &groups); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range groups.Groups {
		found = found || g.Name == "coordination.k8s.io" && g.PreferredVersion.GroupVersion == "coordination.k8s.io/v1"
	}
	if !found {
		t.Errorf("/apis lists no coordination.k8s.io/v1: %+v", groups)
	}
	var res metav1.APIResourceList
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/apis/coordination.k8s.io/v1"}).body, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.APIResources) != 1 || res.APIResources[0].Name != "leases" || !res.APIResources[0].Namespaced {
		t.Errorf("coordination.k8s.io/v1 resources: %+v", res.APIResources)
	}
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/openapi/v3"}).body, &index); err != nil {
		t.Fatal(err)
	}
	doc := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: index.Paths["apis/coordination.k8s.io/v1"].URL})
	if !strings.Contains(string(doc.body), `"io.k8s.api.coordination.v1.Lease"`) ||
		!strings.Contains(string(doc.body), `/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}`) {
		t.Errorf("the OpenAPI document of coordination.k8s.io/v1: %s", doc.body)
	}
	var core struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/openapi/v3/api/v1"}).body, &core); err != nil {
		t.Fatal(err)
	}
	if _, ok := core.Paths["/api/v1/namespaces/{name}"]; !ok {
		t.Errorf("core/v1's OpenAPI has no namespace path")
	}
}

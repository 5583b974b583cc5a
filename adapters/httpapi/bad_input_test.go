package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// onEachEngine runs test against a herd on a SQLite file and on a
// PostgreSQL database: bad input must be answered alike on both.
func onEachEngine(t *testing.T, test func(t *testing.T, base string)) {
	onEachEngineAPI(t, func(t *testing.T, a *testAPI) { test(t, a.serve(t).URL) })
}

// onEachEngineAPI runs test with a herd's API on a SQLite file and on a
// PostgreSQL database, for a test that also drives its clock or writer.
func onEachEngineAPI(t *testing.T, test func(t *testing.T, a *testAPI)) {
	t.Run("sqlite", func(t *testing.T) {
		store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		test(t, newTestAPIOn(t, store.Log(), nil))
	})
	t.Run("postgres", func(t *testing.T) {
		test(t, newTestAPIOn(t, eventstest.OpenPostgres(t, pgtest.URL(t)), nil))
	})
}

// badRequestNaming requires a 400 whose message names each of words.
func badRequestNaming(t *testing.T, a answer, words ...string) {
	t.Helper()
	if a.code != http.StatusBadRequest {
		t.Fatalf("answer %d %s, want 400", a.code, a.body)
	}
	_, msg := a.status(t)
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("the refusal %q does not name %q", msg, w)
		}
	}
}

// TestTimesOutsideWhatHerdStoresAre400: a time before 1678 or from 2262
// on (the zero time 0001-01-01 among them, which once read as no bound)
// is refused with 400 naming the parameter and the range on lists,
// explanations, timelines, series and the audit log, on both engines —
// never a 500, never an unbounded answer.
func TestTimesOutsideWhatHerdStoresAre400(t *testing.T) {
	onEachEngine(t, func(t *testing.T, base string) {
		mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("n1")})
		mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/default/pods",
			body: `{"metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"i"}]}}`})
		routes := map[string][]string{
			"/api/v1/nodes":                                            {"asOf"},
			"/api/v1/namespaces/default/pods":                          {"asOf"},
			"/apis/herd.dev/v1/nodes/n1/explanation":                   {"asOf"},
			"/apis/herd.dev/v1/namespaces/default/pods/p1/explanation": {"asOf"},
			"/apis/herd.dev/v1/nodes/n1/timeline":                      {"asOf"},
			"/apis/herd.dev/v1/nodes/n1/series":                        {"asOf", "since", "until"},
			"/apis/herd.dev/v1/auditevents":                            {"since", "until"},
		}
		for path, params := range routes {
			for _, p := range params {
				for _, v := range []string{"0001-01-01T00:00:00Z", "1677-01-01T00:00:00Z", "2262-04-12T00:00:00Z", "9999-12-31T23:59:59Z"} {
					t.Run(path+"?"+p+"="+v, func(t *testing.T) {
						a := send(t, nil, base, req{method: "GET", path: path + "?" + p + "=" + url.QueryEscape(v)})
						badRequestNaming(t, a, p, v, "1678-01-01T00:00:00Z", "2262-01-01T00:00:00Z")
					})
				}
				// The range's first moment is a time like any other (when
				// nothing existed yet: an explanation is then 404).
				if a := send(t, nil, base, req{method: "GET", path: path + "?" + p + "=1678-01-01T00:00:00Z"}); a.code == http.StatusBadRequest || a.code >= 500 {
					t.Errorf("%s?%s=1678-01-01T00:00:00Z: %d %s", path, p, a.code, a.body)
				}
			}
		}
	})
}

// TestTextHerdCannotStoreIsRefusedOrRepaired: a NUL character or bytes
// that are not UTF-8 in a path or a query parameter (a node's name, the
// audit log's filters) are 400 naming it; a NUL in a body's string (a
// heartbeat's condition message) is 422 naming the field and changes
// nothing; bytes of a body that are not UTF-8 become U+FFFD, as
// Kubernetes' JSON decoding makes them — and a node heartbeats on, alike
// on both engines.
func TestTextHerdCannotStoreIsRefusedOrRepaired(t *testing.T) {
	onEachEngine(t, func(t *testing.T, base string) {
		mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("n1")})
		for _, tc := range []struct{ name, path, names string }{
			{"a NUL in a name", "/api/v1/nodes/n%001", "path"},
			{"not UTF-8 in a name", "/api/v1/nodes/n%ff1", "path"},
			{"a NUL in a drain's name", "/apis/herd.dev/v1/nodes/n%001/timeline", "path"},
			{"a NUL in the actor filter", "/apis/herd.dev/v1/auditevents?actor=a%00b", "actor"},
			{"not UTF-8 in the actor filter", "/apis/herd.dev/v1/auditevents?actor=a%ffb", "actor"},
			{"a NUL in the stream filter", "/apis/herd.dev/v1/auditevents?stream=node/n%001", "stream"},
			{"a NUL in the id filter", "/apis/herd.dev/v1/auditevents?id=%00", "id"},
			{"not UTF-8 in a label selector", "/api/v1/nodes?labelSelector=a%3D%ff", "labelSelector"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				badRequestNaming(t, send(t, nil, base, req{method: "GET", path: tc.path}), tc.names)
			})
		}

		nul := `{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"a\u0000b"}]}}`
		a := send(t, nil, base, req{method: "PATCH", path: "/api/v1/nodes/n1/status", contentType: mergePatch, body: nul})
		if a.code != http.StatusUnprocessableEntity || !strings.Contains(string(a.body), "status.conditions[0].message") {
			t.Fatalf("a NUL in a condition message: %d %s, want 422 naming status.conditions[0].message", a.code, a.body)
		}
		a = send(t, nil, base, req{method: "PATCH", path: "/api/v1/nodes/n1/status", contentType: mergePatch,
			body: "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"caf\xe9 \xff\"}]}}"})
		if a.code != http.StatusOK {
			t.Fatalf("a condition message that is not UTF-8: %d %s, want 200", a.code, a.body)
		}
		var n corev1.Node
		if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/n1"}).body, &n); err != nil {
			t.Fatal(err)
		}
		var msg string
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				msg = c.Message
			}
		}
		if msg != "caf\uFFFD \uFFFD" {
			t.Errorf("the Ready message reads back %q, want the bytes that are not UTF-8 as U+FFFD", msg)
		}
		// A taint with a NUL in its value, and a registration with one in
		// a label, are 422 naming the field.
		a = send(t, nil, base, req{method: "POST", path: "/apis/herd.dev/v1/nodes/n1/taints", body: `{"key":"k","value":"a\u0000","effect":"NoSchedule"}`})
		if a.code != http.StatusUnprocessableEntity || !strings.Contains(string(a.body), "value") {
			t.Errorf("a NUL in a taint: %d %s", a.code, a.body)
		}
		a = send(t, nil, base, req{method: "POST", path: "/api/v1/namespaces/default/configmaps", body: `{"metadata":{"name":"c"},"data":{"k":"a\u0000"}}`})
		if a.code != http.StatusUnprocessableEntity || !strings.Contains(string(a.body), `data[\"k\"]`) {
			t.Errorf("a NUL in a ConfigMap's data: %d %s", a.code, a.body)
		}
		// The audit log still answers, and the node still heartbeats.
		mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/apis/herd.dev/v1/auditevents?stream=node/n1"})
		mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: "/api/v1/nodes/n1/status", contentType: mergePatch, body: readyPatch})
	})
}

// TestANodeReportOnAResourceVersionHerdNeverGaveIs400: a status write
// whose resourceVersion is not a log position is refused as the other
// kinds' conditional writes are — 400 naming the value, nothing appended
// — and one that is a log position but not the node's is a conflict.
func TestANodeReportOnAResourceVersionHerdNeverGaveIs400(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("n1")})
	status := func(rv string) req {
		return req{method: "PUT", path: "/api/v1/nodes/n1/status",
			body: `{"metadata":{"name":"n1","resourceVersion":"` + rv + `"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`}
	}
	head := api.head(t)
	refusedLeavingTheLog(t, api, base, http.StatusBadRequest, status("x1"), `"x1"`, head)
	refusedLeavingTheLog(t, api, base, http.StatusConflict, status("1"), "the object has been modified", head)
}

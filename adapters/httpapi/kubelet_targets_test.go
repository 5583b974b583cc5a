package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// targetAPI serves herd's API on loopback over a fresh log, with
// tokenDir as --kubelet-token-dir.
func targetAPI(t *testing.T, tokenDir string) (*httptest.Server, *projections.Writer, *events.Store) {
	t.Helper()
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := projections.Migrate(t.Context(), store.Log()); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	w := projections.NewWriter(store.Log(), clk, nil)
	s, err := NewServer(Deps{
		Nodes: w.NodeCommands(), NodeView: projections.NewNodeView(store.Log()), Pods: w.PodCommands(), PodView: projections.NewPodView(store.Log()), KubeletTargets: w.KubeletTargetsCommands(),
		Namespaces: w.NamespaceCommands(), NamespaceView: projections.NewNamespaceView(store.Log()), Leases: w.LeaseCommands(), LeaseView: projections.NewLeaseView(store.Log()),
		Timeline: projections.NewTimelineView(store.Log()), Log: store.Log(), KubeletTargetView: projections.NewKubeletTargetView(store.Log()), Clock: clk, Logger: zap.NewNop(),
	}, Config{KubeletTokenDir: tokenDir})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv, w, store
}

func call(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

func TestKubeletTargetsAPI(t *testing.T) {
	tokens := t.TempDir()
	srv, w, store := targetAPI(t, tokens)
	base := srv.URL + "/apis/herd.dev/v1/kubelettargets"
	token := filepath.Join(tokens, "token")
	if err := os.WriteFile(token, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	put := `{"apiVersion":"herd.dev/v1","kind":"KubeletTarget","metadata":{"name":"worker-a"},"spec":{"url":"http://10.0.0.11:10255","bearerTokenFile":"` + token + `"}}`

	code, body := call(t, http.MethodPut, base+"/worker-a", put)
	if code != http.StatusCreated {
		t.Fatalf("PUT: %d %s", code, body)
	}
	var got KubeletTarget
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := KubeletTarget{
		TypeMeta:   metav1.TypeMeta{Kind: "KubeletTarget", APIVersion: "herd.dev/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "worker-a", ResourceVersion: "1"},
		Spec:       KubeletTargetSpec{URL: "http://10.0.0.11:10255", BearerTokenFile: token},
		Status:     KubeletTargetStatus{Source: "api"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PUT answer (-want +got):\n%s", diff)
	}
	if code, body := call(t, http.MethodPut, base+"/worker-a", put); code != http.StatusOK {
		t.Errorf("PUT again: %d %s, want 200", code, body)
	}
	if head, _ := store.Head(t.Context(), store.DB()); head != 1 {
		t.Errorf("log head %d after the same PUT twice, want 1", head)
	}
	code, body = call(t, http.MethodGet, base+"/worker-a", "")
	if code != http.StatusOK || !bytes.Contains(body, []byte(`"url":"http://10.0.0.11:10255"`)) {
		t.Errorf("GET: %d %s", code, body)
	}

	// A configured target is listed, and the API cannot change it.
	if _, err := w.KubeletTargetsCommands().Execute(context.Background(), domain.Key{},
		domain.SyncConfiguredKubeletTargets{Targets: []domain.KubeletTarget{{Name: "edge-1", URL: "http://10.0.0.9:10255"}}}); err != nil {
		t.Fatal(err)
	}
	code, body = call(t, http.MethodGet, base, "")
	var list KubeletTargetList
	if err := json.Unmarshal(body, &list); err != nil || code != http.StatusOK {
		t.Fatalf("list: %d %s %v", code, body, err)
	}
	if len(list.Items) != 2 || list.Items[0].Name != "edge-1" || list.Items[0].Status.Source != "config" || list.ResourceVersion != "2" {
		t.Errorf("list %+v", list)
	}

	tests := []struct {
		name, method, path, body string
		code                     int
		says                     []string
	}{
		{"a misspelt field", http.MethodPut, "/worker-b", `{"spec":{"url":"http://a:10255","bearerTokenFlie":"/x"}}`, 400, []string{`unknown field "bearerTokenFlie"`}},
		{"another name in the body", http.MethodPut, "/worker-b", `{"metadata":{"name":"worker-c"},"spec":{"url":"http://a:10255"}}`, 400, []string{`metadata.name "worker-c" does not match`}},
		{"files herd cannot read, and a bad URL", http.MethodPut, "/worker-b",
			`{"spec":{"url":"ftp://a","caFile":"/nonexistent/ca.pem","bearerTokenFile":"/nonexistent/token"}}`, 422, []string{
				`spec.url: Invalid value: "ftp://a"`,
				`spec.caFile: Invalid value: "/nonexistent/ca.pem": herd cannot read it: no such file or directory`,
				`spec.bearerTokenFile: Invalid value: "/nonexistent/token": is not inside --kubelet-token-dir`,
			}},
		{"a token file that is not a CA bundle", http.MethodPut, "/worker-b",
			`{"spec":{"url":"https://a:10250","caFile":"` + token + `"}}`, 422, []string{`spec.caFile: Invalid value: "` + token + `": holds no PEM certificate`}},
		{"a stale resourceVersion", http.MethodPut, "/worker-a",
			`{"metadata":{"resourceVersion":"7"},"spec":{"url":"http://10.0.0.11:10250"}}`, 409, []string{"is at resourceVersion 1, not 7"}},
		{"a configured target", http.MethodPut, "/edge-1", `{"spec":{"url":"http://10.0.0.9:10250"}}`, 409, []string{"comes from herd's configuration (--kubelet or --kubelet-config); change it there"}},
		{"deleting a configured target", http.MethodDelete, "/edge-1", "", 409, []string{"remove it there"}},
		{"deleting an unknown target", http.MethodDelete, "/ghost", "", 404, []string{`"ghost" not found`}},
		{"getting an unknown target", http.MethodGet, "/ghost", "", 404, []string{`"ghost" not found`}},
		{"an empty body", http.MethodPut, "/worker-b", "", 400, []string{"the request body is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := store.Head(t.Context(), store.DB())
			code, body := call(t, tt.method, base+tt.path, tt.body)
			if code != tt.code {
				t.Errorf("%d %s, want %d", code, body, tt.code)
			}
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
				t.Fatalf("the answer is not a Status: %s", body)
			}
			for _, s := range tt.says {
				if !strings.Contains(st.Message, s) {
					t.Errorf("%q does not say %s", st.Message, s)
				}
			}
			if after, _ := store.Head(t.Context(), store.DB()); after != before {
				t.Errorf("a refused request appended %d events", after-before)
			}
		})
	}

	if code, body := call(t, http.MethodDelete, base+"/worker-a", ""); code != http.StatusOK {
		t.Errorf("DELETE: %d %s", code, body)
	}
	if code, _ := call(t, http.MethodGet, base+"/worker-a", ""); code != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d, want 404", code)
	}
}

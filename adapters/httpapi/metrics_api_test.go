package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"herd/domain"
)

// newMetricsAPI is a server with the test tokens and three nodes: web-01,
// an agent that reported its CPU use; kube-01, a kubelet with its
// summary's figures; and pico-02, which reports no figures.
func newMetricsAPI(t *testing.T) (*testAPI, string) {
	t.Helper()
	api, base := newAuthAPI(t)
	pct := 50.0
	nano, ws := uint64(250_000_000), uint64(768<<20)
	api.node(t, "web-01", domain.KindLinux, map[string]string{"rack": "1"}, domain.RecordHeartbeat{Metrics: &domain.Metrics{
		CPUCount: 4, CPUPercent: &pct, MemoryTotalBytes: 8 << 30, MemoryAvailableBytes: 6 << 30,
		DiskTotalBytes: 100 << 30, DiskAvailableBytes: 50 << 30, PIDsMax: 1000, PIDsCurrent: 10,
	}})
	api.node(t, "kube-01", domain.KindKubelet, map[string]string{"rack": "2"},
		domain.RecordHeartbeat{Kubelet: &domain.KubeletMetrics{CPUUsageNanoCores: &nano, MemoryWorkingSetBytes: &ws}})
	return api, base
}

// node registers a node of kind with labels and records beat as its
// heartbeat, a second after t0.
func (a *testAPI) node(t *testing.T, name string, kind domain.NodeKind, labels map[string]string, beat domain.RecordHeartbeat) {
	t.Helper()
	a.clock.SetTime(t0.Add(time.Second))
	_, err := a.writer.NodeCommands().Execute(t.Context(), domain.Key{Name: name},
		domain.NodeSequence{domain.RegisterNode{Registration: domain.Registration{Name: name, Kind: kind, Labels: labels}}, beat})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNodeMetricsAPI(t *testing.T) {
	api, base := newMetricsAPI(t)
	api.clock.SetTime(t0.Add(time.Minute))
	const nodes = "/apis/metrics.k8s.io/v1beta1/nodes"

	t.Run("every node with figures, in JSON", func(t *testing.T) {
		var list metricsv1beta1.NodeMetricsList
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: nodes, token: "viewer-token"}).body, &list); err != nil {
			t.Fatal(err)
		}
		if list.Kind != "NodeMetricsList" || list.APIVersion != "metrics.k8s.io/v1beta1" {
			t.Errorf("kind %q apiVersion %q", list.Kind, list.APIVersion)
		}
		got := map[string]string{}
		for _, m := range list.Items {
			got[m.Name] = m.Usage.Cpu().String() + " " + m.Usage.Memory().String()
			if !m.Timestamp.Time.Equal(t0.Add(time.Second)) || m.Window.Duration != 10*time.Second {
				t.Errorf("%s: timestamp %v window %v, want the heartbeat's time and 10s", m.Name, m.Timestamp, m.Window)
			}
		}
		want := map[string]string{"web-01": "2 2Gi", "kube-01": "250m 768Mi"}
		if len(got) != len(want) || got["web-01"] != want["web-01"] || got["kube-01"] != want["kube-01"] {
			t.Errorf("usage by node %v, want %v (pico-02 has no figures)", got, want)
		}
	})

	t.Run("selected by the nodes' labels", func(t *testing.T) {
		var list metricsv1beta1.NodeMetricsList
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: nodes + "?labelSelector=rack%3D2", token: "admin-token"}).body, &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Name != "kube-01" || list.Items[0].Labels["rack"] != "2" {
			t.Errorf("rack=2 selects %+v, want kube-01 with its labels", list.Items)
		}
	})

	t.Run("in protobuf, as kubectl top asks", func(t *testing.T) {
		r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Accept", "application/vnd.kubernetes.protobuf, */*")
		r.Header.Set("Authorization", "Bearer viewer-token")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		if ct := resp.Header.Get("Content-Type"); ct != runtime.ContentTypeProtobuf {
			t.Fatalf("Content-Type %q", ct)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := runtime.SerializerInfoForMediaType(servedTypes, runtime.ContentTypeProtobuf)
		obj, _, err := info.Serializer.Decode(body, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		list, ok := obj.(*metricsv1beta1.NodeMetricsList)
		if !ok || len(list.Items) != 2 {
			t.Fatalf("decoded %T %+v", obj, obj)
		}
	})

	t.Run("one node", func(t *testing.T) {
		var m metricsv1beta1.NodeMetrics
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: nodes + "/web-01", token: "viewer-token"}).body, &m); err != nil {
			t.Fatal(err)
		}
		if m.Kind != "NodeMetrics" || m.Name != "web-01" || m.Usage.Cpu().MilliValue() != 2000 || !m.CreationTimestamp.Time.Equal(t0.Add(time.Minute)) {
			t.Errorf("web-01's metrics %+v", m)
		}
	})

	tests := []struct {
		name        string
		rq          req
		code        int
		reason      string
		messageHas  string
		appendsNone bool
	}{
		{"a node without figures is not found, and why", req{method: "GET", path: nodes + "/pico-02", token: "viewer-token"},
			404, "NotFound", `nodes.metrics.k8s.io "pico-02" not found: herd has no CPU and memory figures for node "pico-02" yet`, true},
		{"a node herd does not know", req{method: "GET", path: nodes + "/nobody", token: "viewer-token"},
			404, "NotFound", `nodes.metrics.k8s.io "nobody" not found`, true},
		{"a bad label selector", req{method: "GET", path: nodes + "?labelSelector=%3D%3D", token: "viewer-token"},
			400, "BadRequest", "unable to parse labelSelector", true},
		{"a field other than the name", req{method: "GET", path: nodes + "?fieldSelector=spec.unschedulable%3Dtrue", token: "viewer-token"},
			400, "BadRequest", "field label not supported: spec.unschedulable", true},
		{"no watch, as metrics-server", req{method: "GET", path: nodes + "?watch=true", token: "viewer-token"},
			405, "MethodNotAllowed", "watch is not supported on nodes.metrics.k8s.io", true},
		{"a node reads no metrics", req{method: "GET", path: nodes, token: "pico1-token"},
			403, "Forbidden", `may register and report for node "pico-01" only, renew its own lease, run the pods bound to it and read the ConfigMaps granted to it) cannot list resource "nodes" in API group "metrics.k8s.io"`, true},
		{"someone without a role reads none", req{method: "GET", path: nodes + "/web-01", token: "norole-token"},
			403, "Forbidden", "", true},
		{"nobody writes metrics", req{method: "DELETE", path: nodes + "/web-01", token: "viewer-token"},
			403, "Forbidden", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, nil, base, tt.rq)
			if a.code != tt.code {
				t.Fatalf("%d %s, want %d", a.code, a.body, tt.code)
			}
			reason, msg := a.status(t)
			if reason != tt.reason || !strings.Contains(msg, tt.messageHas) {
				t.Errorf("%s %q, want %s containing %q", reason, msg, tt.reason, tt.messageHas)
			}
			if after := api.head(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
		})
	}
}

func TestPodMetricsAPIHasNone(t *testing.T) {
	api, base := newMetricsAPI(t)
	api.podOn(t, "web", "web-01")
	for _, path := range []string{"/apis/metrics.k8s.io/v1beta1/pods", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"} {
		var list metricsv1beta1.PodMetricsList
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: path, token: "viewer-token"}).body, &list); err != nil {
			t.Fatal(err)
		}
		if list.Kind != "PodMetricsList" || list.Items == nil || len(list.Items) != 0 {
			t.Errorf("%s: %+v, want an empty PodMetricsList", path, list)
		}
	}
	a := send(t, nil, base, req{method: "GET", path: "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web", token: "viewer-token"})
	if reason, msg := a.status(t); a.code != 404 || reason != "NotFound" || !strings.Contains(msg, "herd has no CPU and memory figures for pod default/web") {
		t.Errorf("%d %s %q, want 404 saying herd keeps no figures per pod", a.code, reason, msg)
	}
}

func TestDiscoveryListsTheMetricsAPI(t *testing.T) {
	_, base := newMetricsAPI(t)
	var groups metav1.APIGroupList
	if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/apis", token: "viewer-token"}).body, &groups); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == "metrics.k8s.io" })
	if i < 0 || groups.Groups[i].PreferredVersion.GroupVersion != "metrics.k8s.io/v1beta1" {
		t.Fatalf("/apis lists %+v, want metrics.k8s.io/v1beta1", groups.Groups)
	}
	var resources metav1.APIResourceList
	if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/apis/metrics.k8s.io/v1beta1", token: "viewer-token"}).body, &resources); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range resources.APIResources {
		got[r.Name] = r.Kind + " " + strings.Join(r.Verbs, ",")
	}
	if resources.GroupVersion != "metrics.k8s.io/v1beta1" || got["nodes"] != "NodeMetrics get,list" || got["pods"] != "PodMetrics get,list" {
		t.Errorf("%s lists %v", resources.GroupVersion, got)
	}
}

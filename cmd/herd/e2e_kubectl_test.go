package main

import (
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// TestKubectl drives a real herd serve with the machine's own kubectl: the
// API is Kubernetes-shaped enough that kubectl works unchanged.
func TestKubectl(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-01"))
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-02", withReady("False", "KubeletNotReady")))
	registerAgent(t, srv.URL, "web-01")
	hb := heartbeat(t, srv.URL, "web-01", healthyMetrics())
	kc := newKubectl(t, srv.URL)

	t.Run("get nodes", func(t *testing.T) {
		header, rows := table(t, kc.must(t, "get", "nodes"))
		if want := []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}; !slices.Equal(header, want) {
			t.Errorf("header %q, want %q", header, want)
		}
		want := map[string]string{"pico-01": "Ready", "pico-02": "NotReady", "web-01": "Ready"}
		if got := columnByName(rows, 1); !maps.Equal(got, want) {
			t.Errorf("STATUS by node %v, want %v", got, want)
		}
		if got := byName(rows)["web-01"][4]; got != "herd-agent/v0.1.0" {
			t.Errorf("web-01 VERSION %q, want herd-agent/v0.1.0", got)
		}
	})

	t.Run("get nodes -o wide", func(t *testing.T) {
		header, rows := table(t, kc.must(t, "get", "nodes", "-o", "wide"))
		for _, col := range []string{"INTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME", "KIND", "STATE"} {
			if !slices.Contains(header, col) {
				t.Errorf("wide header %q lacks %s", header, col)
			}
		}
		web := strings.Join(byName(rows)["web-01"], " ")
		for _, want := range []string{"10.0.0.21", "Ubuntu 24.04.1 LTS", "6.8.0-45-generic", "herd://0.1.0", "linux"} {
			if !strings.Contains(web, want) {
				t.Errorf("wide row of web-01 %q lacks %q", web, want)
			}
		}
		if pico := strings.Join(byName(rows)["pico-01"], " "); !strings.Contains(pico, "192.168.4.17") || !strings.HasSuffix(pico, "rp2040 Ready") {
			t.Errorf("wide row of pico-01 %q: want its address, KIND rp2040 and STATE Ready", pico)
		}
	})

	t.Run("get nodes -l", func(t *testing.T) {
		_, rows := table(t, kc.must(t, "get", "nodes", "-l", "herd.dev/kind=linux"))
		if got := names(rows); !slices.Equal(got, []string{"web-01"}) {
			t.Errorf("herd.dev/kind=linux selects %q, want [web-01]", got)
		}
		_, rows = table(t, kc.must(t, "get", "nodes", "-l", "herd.dev/kind!=linux"))
		if got := names(rows); !slices.Equal(got, []string{"pico-01", "pico-02"}) {
			t.Errorf("herd.dev/kind!=linux selects %q, want [pico-01 pico-02]", got)
		}
	})

	t.Run("get node -o yaml", func(t *testing.T) {
		var n corev1.Node
		if err := yaml.Unmarshal([]byte(kc.must(t, "get", "node", "web-01", "-o", "yaml")), &n); err != nil {
			t.Fatalf("kubectl's yaml does not parse as a Node: %v", err)
		}
		if n.Name != "web-01" || n.Kind != "Node" || n.APIVersion != "v1" {
			t.Errorf("got %s %s/%s, want v1 Node web-01", n.APIVersion, n.Kind, n.Name)
		}
		if n.ResourceVersion != hb.ResourceVersion {
			t.Errorf("resourceVersion %s, want %s, the one the heartbeat returned", n.ResourceVersion, hb.ResourceVersion)
		}
		if n.Labels["herd.dev/kind"] != "linux" || n.Labels["topology.kubernetes.io/zone"] != "rack-1" {
			t.Errorf("labels %v: want herd.dev/kind=linux and the registered zone", n.Labels)
		}
		for ct, want := range map[corev1.NodeConditionType]corev1.ConditionStatus{
			corev1.NodeReady: corev1.ConditionTrue, corev1.NodeMemoryPressure: corev1.ConditionFalse,
			corev1.NodeDiskPressure: corev1.ConditionFalse, corev1.NodePIDPressure: corev1.ConditionFalse,
		} {
			if c, ok := condition(n, ct); !ok || c.Status != want || c.LastHeartbeatTime.IsZero() || c.LastTransitionTime.IsZero() {
				t.Errorf("condition %s = %+v, want status %s with both times set", ct, c, want)
			}
		}
		for name, want := range map[corev1.ResourceName]string{"cpu": "4", "memory": "8Gi", "pods": "16", "ephemeral-storage": "100Gi"} {
			if got := n.Status.Capacity[name]; got.Cmp(resource.MustParse(want)) != 0 {
				t.Errorf("capacity %s = %s, want %s", name, got.String(), want)
			}
		}
		if got := n.Status.Allocatable[corev1.ResourceCPU]; got.Cmp(resource.MustParse("3500m")) != 0 {
			t.Errorf("allocatable cpu = %s, want 3500m", got.String())
		}
	})

	t.Run("get unknown node", func(t *testing.T) {
		res := kc.run(t, "get", "node", "no-such-node")
		if res.Code == 0 || !strings.Contains(res.Stderr, "NotFound") || !strings.Contains(res.Stderr, "no-such-node") {
			t.Errorf("exit %d, stderr %q: want a NotFound error naming the node", res.Code, res.Stderr)
		}
	})

	t.Run("delete node", func(t *testing.T) {
		if out := kc.must(t, "delete", "node", "pico-02"); !strings.Contains(out, `node "pico-02" deleted`) {
			t.Errorf("kubectl delete said %q", out)
		}
		res := kc.run(t, "get", "node", "pico-02")
		if res.Code == 0 || !strings.Contains(res.Stderr, "NotFound") {
			t.Errorf("get after delete: exit %d, stderr %q: want NotFound", res.Code, res.Stderr)
		}
		_, rows := table(t, kc.must(t, "get", "nodes"))
		if got := names(rows); !slices.Equal(got, []string{"pico-01", "web-01"}) {
			t.Errorf("nodes after delete %q, want [pico-01 web-01]", got)
		}
		if code, body := call(t, http.MethodGet, srv.URL+"/api/v1/nodes/pico-02", nil, nil); code != http.StatusNotFound {
			t.Errorf("GET deleted node: %d %s, want 404", code, body)
		}
		var deleted bool
		for _, e := range readLog(t, srv.URL) {
			deleted = deleted || (e.Stream == "node/pico-02" && e.Type == "NodeDeleted")
		}
		if !deleted {
			t.Error("the log has no NodeDeleted on node/pico-02")
		}
	})
}

// kubectl runs the machine's kubectl against one herd, with a home of its
// own: kubectl caches discovery under ~/.kube/cache, and neither the
// machine's kubeconfig nor its cache may leak into the test.
type kubectl struct {
	base string
	env  []string
	// auth are --token and --certificate-authority, for a herd that
	// requires them.
	auth []string
}

func newKubectl(t *testing.T, base string) kubectl {
	home := t.TempDir()
	return kubectl{base: base, env: append(os.Environ(), "HOME="+home, "KUBECONFIG="+filepath.Join(home, "kubeconfig"))}
}

// run runs kubectl and returns how it ended.
func (k kubectl) run(t *testing.T, args ...string) result {
	t.Helper()
	full := append([]string{"--server", k.base, "--request-timeout", "10s"}, k.auth...)
	return run(t, k.env, "kubectl", append(full, args...)...)
}

// must runs kubectl, requires exit 0 and returns its stdout.
func (k kubectl) must(t *testing.T, args ...string) string {
	t.Helper()
	res := k.run(t, args...)
	if res.Code != 0 {
		t.Fatalf("kubectl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
	}
	return res.Stdout
}

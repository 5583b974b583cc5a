package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// podManifest is a pod with a controller, as kubectl drain expects of
// the pods it evicts: a kind of a group herd does not serve, so that
// herd leaves its pods alone (a StatefulSet or ReplicaSet that does not
// exist would have them collected, as in Kubernetes).
func podManifest(name string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  labels: {app: web}
  ownerReferences:
  - {apiVersion: example.com/v1, kind: WebServer, name: web, uid: "5f0c", controller: true}
spec:
  containers:
  - name: web
    image: nginx
    resources: {requests: {cpu: 100m, memory: 64Mi}}
`, name)
}

// TestKubectlPods runs kubectl's pod and node-maintenance commands against
// herd serve: create, get -A -o wide, cordon, uncordon, taint, drain and
// delete, with herd's scheduler and termination doing their part.
func TestKubectlPods(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	for _, n := range []string{"n1", "n2"} {
		registerAgent(t, srv.URL, n)
		heartbeat(t, srv.URL, n, healthyMetrics())
	}
	kc := newKubectl(t, srv.URL)
	dir := t.TempDir()
	for _, name := range []string{"web-a", "web-b", "web-c", "web-d"} {
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(podManifest(name)), 0o600); err != nil {
			t.Fatal(err)
		}
		if out := kc.must(t, "create", "-f", path); !strings.Contains(out, "pod/"+name+" created") {
			t.Fatalf("kubectl create said %q", out)
		}
	}
	// Every pod is placed, on both nodes (least allocated spreads them).
	nodeOf := map[string]string{}
	eventually(t, 20*time.Second, func() error {
		var pods corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/pods", nil, &pods)
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				return fmt.Errorf("pod %s is not scheduled", p.Name)
			}
			nodeOf[p.Name] = p.Spec.NodeName
		}
		return nil
	})

	t.Run("get pods -A -o wide", func(t *testing.T) {
		header, rows := table(t, kc.must(t, "get", "pods", "-A", "-o", "wide"))
		for _, col := range []string{"NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"} {
			if !slices.Contains(header, col) {
				t.Errorf("header %q lacks %s", header, col)
			}
		}
		if len(rows) != 4 {
			t.Fatalf("%d rows, want 4:\n%v", len(rows), rows)
		}
		node := slices.Index(header, "NODE")
		for _, r := range rows {
			if r[node] != nodeOf[r[1]] {
				t.Errorf("pod %s on %q in the table, %q in the API", r[1], r[node], nodeOf[r[1]])
			}
		}
	})

	t.Run("cordon and uncordon", func(t *testing.T) {
		if out := kc.must(t, "cordon", "n2"); !strings.Contains(out, "node/n2 cordoned") {
			t.Errorf("cordon said %q", out)
		}
		_, rows := table(t, kc.must(t, "get", "nodes"))
		if got := byName(rows)["n2"][1]; got != "Ready,SchedulingDisabled" {
			t.Errorf("n2 STATUS %q after cordon", got)
		}
		if out := kc.must(t, "uncordon", "n2"); !strings.Contains(out, "node/n2 uncordoned") {
			t.Errorf("uncordon said %q", out)
		}
		_, rows = table(t, kc.must(t, "get", "nodes"))
		if got := byName(rows)["n2"][1]; got != "Ready" {
			t.Errorf("n2 STATUS %q after uncordon", got)
		}
	})

	t.Run("taint", func(t *testing.T) {
		if out := kc.must(t, "taint", "nodes", "n1", "maintenance=true:NoSchedule"); !strings.Contains(out, "node/n1 tainted") {
			t.Errorf("taint said %q", out)
		}
		var n corev1.Node
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/n1", nil, &n)
		if !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
			return t.Key == "maintenance" && t.Value == "true" && t.Effect == corev1.TaintEffectNoSchedule
		}) {
			t.Errorf("n1 taints %+v lack maintenance=true:NoSchedule", n.Spec.Taints)
		}
	})

	t.Run("drain", func(t *testing.T) {
		res := kc.run(t, "drain", "n1", "--ignore-daemonsets", "--grace-period=5", "--timeout=60s")
		if res.Code != 0 {
			t.Fatalf("kubectl drain: exit %d\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
		}
		if !strings.Contains(res.Stdout, "node/n1 drained") {
			t.Errorf("drain said %q", res.Stdout)
		}
		var pods corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/pods?fieldSelector=spec.nodeName%3Dn1", nil, &pods)
		if len(pods.Items) != 0 {
			t.Errorf("%d pods left on n1 after the drain", len(pods.Items))
		}
		_, rows := table(t, kc.must(t, "get", "nodes"))
		if got := byName(rows)["n1"][1]; got != "Ready,SchedulingDisabled" {
			t.Errorf("n1 STATUS %q after drain", got)
		}
	})

	t.Run("delete pod", func(t *testing.T) {
		var left corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/pods", nil, &left)
		if len(left.Items) == 0 {
			t.Fatal("no pod left to delete")
		}
		name := left.Items[0].Name
		if out := kc.must(t, "delete", "pod", name); !strings.Contains(out, `pod "`+name+`" deleted`) {
			t.Errorf("delete said %q", out)
		}
		if code, body := call(t, http.MethodGet, srv.URL+"/api/v1/namespaces/default/pods/"+name, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET after kubectl delete: %d %s, want 404", code, body)
		}
	})
}

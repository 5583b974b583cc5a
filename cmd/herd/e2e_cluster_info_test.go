package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestKubectlClusterInfo: kubectl cluster-info names herd as the control
// plane, and kubectl get services answers (herd runs no Services).
func TestKubectlClusterInfo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	kc := newKubectl(t, srv.URL)
	out := kc.must(t, "cluster-info")
	if !strings.Contains(out, "is running at "+srv.URL) {
		t.Errorf("kubectl cluster-info said:\n%s", out)
	}
	if res := kc.run(t, "get", "services", "-A"); res.Code != 0 || !strings.Contains(res.Stderr+res.Stdout, "No resources found") {
		t.Errorf("kubectl get services -A: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if res := kc.run(t, "get", "service", "web", "-n", "default"); res.Code == 0 || !strings.Contains(res.Stderr, `services "web" not found`) {
		t.Errorf("kubectl get service web: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	srv.stop()
}

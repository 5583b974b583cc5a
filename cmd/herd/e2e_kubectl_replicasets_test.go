package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rsManifest is a ReplicaSet of web pods that names no number of
// replicas: Kubernetes' default, one.
const rsManifest = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
`

// TestKubectlReplicaSets runs kubectl's ReplicaSet commands against herd
// serve: create -f, get rs (and -o wide, and get all), scale through the
// scale subresource, and delete.
func TestKubectlReplicaSets(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	kc := newKubectl(t, srv.URL)
	path := filepath.Join(t.TempDir(), "rs.yaml")
	if err := os.WriteFile(path, []byte(rsManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := kc.must(t, "create", "-f", path); !strings.Contains(out, "replicaset.apps/web created") {
		t.Fatalf("kubectl create said %q", out)
	}
	header, rows := table(t, kc.must(t, "get", "rs"))
	if !slices.Equal(header, []string{"NAME", "DESIRED", "CURRENT", "READY", "AGE"}) || len(rows) != 1 || rows[0][0] != "web" || rows[0][1] != "1" {
		t.Errorf("kubectl get rs: %q %q", header, rows)
	}
	if out := kc.must(t, "scale", "rs", "web", "--replicas=4"); !strings.Contains(out, "replicaset.apps/web scaled") {
		t.Errorf("kubectl scale said %q", out)
	}
	if out := kc.must(t, "get", "rs", "web", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"); out != "4 2" {
		t.Errorf("replicas and generation after the scale: %q, want 4 2", out)
	}
	header, rows = table(t, kc.must(t, "get", "rs", "-o", "wide"))
	if !slices.Equal(header[5:], []string{"CONTAINERS", "IMAGES", "SELECTOR"}) || len(rows) != 1 || rows[0][7] != "app=web" {
		t.Errorf("kubectl get rs -o wide: %q %q", header, rows)
	}
	if out := kc.must(t, "get", "all"); !strings.Contains(out, "replicaset.apps/web") {
		t.Errorf("kubectl get all lists no ReplicaSet:\n%s", out)
	}
	if out := kc.must(t, "delete", "rs", "web"); !strings.Contains(out, `replicaset.apps "web" deleted`) {
		t.Errorf("kubectl delete said %q", out)
	}
}

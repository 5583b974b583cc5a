package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
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
	pods := func() []string { return strings.Fields(kc.must(t, "get", "pods", "-l", "app=web", "-o", "name")) }
	eventually(t, 30*time.Second, func() error {
		if got := pods(); len(got) != 4 {
			return fmt.Errorf("the ReplicaSet's pods after the scale: %v, want 4", got)
		}
		return nil
	})
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
	// Its pods go with it, as Kubernetes' garbage collector deletes them.
	eventually(t, 30*time.Second, func() error {
		if got := pods(); len(got) != 0 {
			return fmt.Errorf("a deleted ReplicaSet's pods: %v, want none", got)
		}
		return nil
	})
}

// TestDrainMovesReplicaSetPods: kubectl drain of a node running the
// demo's ReplicaSet pods evicts them, their ReplicaSets make them again,
// and the scheduler places the new ones on the other nodes, where they
// run: every ReplicaSet ends with its replicas Running, none on the
// drained node.
func TestDrainMovesReplicaSetPods(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "4"}})
	kc := newKubectl(t, srv.URL)
	// running counts the demo's Running pods by ReplicaSet and by node,
	// leaving out those without an owner or on their way out, and the
	// DaemonSet's, which a drain with --ignore-daemonsets leaves.
	running := func(t *testing.T) (byRS, byNode map[string]int) {
		t.Helper()
		out := kc.must(t, "get", "pods", "-n", "demo", "-o",
			`jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.spec.nodeName} {.metadata.deletionTimestamp}{"\n"}{end}`)
		byRS, byNode = map[string]int{}, map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "ReplicaSet" {
				byRS[f[1]]++
				byNode[f[2]]++
			}
		}
		return byRS, byNode
	}
	want := map[string]int{}
	var node string // the node with the most demo pods, which the drain empties
	eventually(t, 90*time.Second, func() error {
		out := kc.must(t, "get", "rs", "-n", "demo", "-o", `jsonpath={range .items[*]}{.metadata.name}={.spec.replicas} {end}`)
		for _, f := range strings.Fields(out) {
			name, n, _ := strings.Cut(f, "=")
			want[name], _ = strconv.Atoi(n)
		}
		byRS, byNode := running(t)
		if len(want) != 3 || !maps.Equal(byRS, want) {
			return fmt.Errorf("the demo's pods are not all Running yet: %v of %v", byRS, want)
		}
		for n, count := range byNode {
			if node == "" || count > byNode[node] {
				node = n
			}
		}
		return nil
	})
	kc.must(t, "drain", node, "--ignore-daemonsets", "--grace-period=1", "--timeout=60s")
	eventually(t, 90*time.Second, func() error {
		byRS, byNode := running(t)
		if !maps.Equal(byRS, want) || byNode[node] != 0 {
			return fmt.Errorf("after the drain of %s: %v Running of %v, %d there", node, byRS, want, byNode[node])
		}
		return nil
	})
}

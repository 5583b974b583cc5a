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
)

// dsManifest is a DaemonSet of log collectors on herd's linux nodes, and
// rsManifest's ReplicaSet of web pods beside them.
const dsManifest = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: logs
spec:
  selector:
    matchLabels: {app: logs}
  template:
    metadata:
      labels: {app: logs}
    spec:
      nodeSelector: {herd.dev/kind: linux}
      containers:
      - name: fluent
        image: fluent-bit:3
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web
spec:
  replicas: 2
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

// registerKind registers an agent node of kind, as herd's agent on such
// a host does, and reports it Ready.
func registerKind(t *testing.T, base, name, kind string) {
	t.Helper()
	body := nodeJSON(t, "agent-node.json", name, func(n map[string]any) {
		n["metadata"].(map[string]any)["labels"].(map[string]any)["herd.dev/kind"] = kind
	})
	mustCall(t, http.StatusOK, http.MethodPut, agentPath(base, name)+"/registration", body, nil)
	heartbeat(t, base, name, healthyMetrics())
}

// TestKubectlDaemonSets runs kubectl's DaemonSet commands against herd
// serve with a few registered nodes: create -f puts one pod on each
// linux node and none on the illumos one; get ds prints Kubernetes'
// columns; rollout status waits for them; a node that joins gets its
// pod; set image rolls a new template out; kubectl drain without
// --ignore-daemonsets refuses, as against Kubernetes, and with it
// evicts the ReplicaSet's pods and leaves the DaemonSet's, which gets no
// second pod on the cordoned node.
func TestKubectlDaemonSets(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	for _, n := range []string{"n1", "n2"} {
		registerAgent(t, srv.URL, n)
		heartbeat(t, srv.URL, n, healthyMetrics())
	}
	registerKind(t, srv.URL, "i1", "illumos")
	kc := newKubectl(t, srv.URL)
	path := filepath.Join(t.TempDir(), "logs.yaml")
	if err := os.WriteFile(path, []byte(dsManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := kc.must(t, "create", "-f", path); !strings.Contains(out, "daemonset.apps/logs created") {
		t.Fatalf("kubectl create said %q", out)
	}
	// logsOn is the node of each of the DaemonSet's Running pods not on
	// its way out, by pod.
	logsOn := func() map[string]string {
		out := kc.must(t, "get", "pods", "-l", "app=logs", "-o",
			`jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.name} {.spec.nodeName} {.metadata.deletionTimestamp}{"\n"}{end}`)
		on := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) == 2 {
				on[f[0]] = f[1]
			}
		}
		return on
	}
	nodesOf := func(on map[string]string) []string {
		var nodes []string
		for _, n := range on {
			nodes = append(nodes, n)
		}
		slices.Sort(nodes)
		return nodes
	}
	eventually(t, 60*time.Second, func() error {
		if got := nodesOf(logsOn()); !slices.Equal(got, []string{"n1", "n2"}) {
			return fmt.Errorf("the DaemonSet's Running pods are on %v, want n1 and n2", got)
		}
		return nil
	})
	kc.must(t, "rollout", "status", "ds/logs", "--timeout=60s")
	// NODE SELECTOR is one column of two words, which table would split.
	lines := strings.Split(strings.TrimSpace(kc.must(t, "get", "ds")), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE" ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "logs 2 2 2 2 2 herd.dev/kind=linux ") {
		t.Errorf("kubectl get ds:\n%s", strings.Join(lines, "\n"))
	}
	if out := kc.must(t, "describe", "ds", "logs"); !strings.Contains(out, "Desired Number of Nodes Scheduled: 2") ||
		!strings.Contains(out, "Node-Selector:  herd.dev/kind=linux") || !strings.Contains(out, "Pods Status:  2 Running") {
		t.Errorf("kubectl describe ds:\n%s", out)
	}
	if out := kc.must(t, "get", "all"); !strings.Contains(out, "daemonset.apps/logs") {
		t.Errorf("kubectl get all lists no DaemonSet:\n%s", out)
	}

	registerAgent(t, srv.URL, "n3")
	heartbeat(t, srv.URL, "n3", healthyMetrics())
	eventually(t, 60*time.Second, func() error {
		if got := nodesOf(logsOn()); !slices.Equal(got, []string{"n1", "n2", "n3"}) {
			return fmt.Errorf("after n3 joined, the DaemonSet's Running pods are on %v", got)
		}
		return nil
	})

	kc.must(t, "set", "image", "ds/logs", "fluent=fluent-bit:4")
	kc.must(t, "rollout", "status", "ds/logs", "--timeout=90s")
	if out := kc.must(t, "get", "pods", "-l", "app=logs", "-o", "jsonpath={.items[*].spec.containers[0].image}"); strings.Contains(out, "fluent-bit:3") {
		t.Errorf("images after the rollout: %s", out)
	}

	res := kc.run(t, "drain", "n1", "--grace-period=1", "--timeout=60s")
	if res.Code == 0 || !strings.Contains(res.Stderr, "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)") {
		t.Errorf("kubectl drain without --ignore-daemonsets: exit %d\nstderr %s", res.Code, res.Stderr)
	}
	res = kc.run(t, "drain", "n1", "--ignore-daemonsets", "--grace-period=1", "--timeout=60s")
	if res.Code != 0 || !strings.Contains(res.Stdout, "node/n1 drained") || !strings.Contains(strings.ToLower(res.Stderr), "ignoring daemonset-managed pods") {
		t.Fatalf("kubectl drain --ignore-daemonsets: exit %d\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
	}
	eventually(t, 60*time.Second, func() error {
		out := kc.must(t, "get", "pods", "-l", "app=web", "-o", `jsonpath={range .items[?(@.status.phase=="Running")]}{.spec.nodeName} {.metadata.deletionTimestamp}{"\n"}{end}`)
		if strings.Count(strings.TrimSpace(out), "\n") != 1 || strings.Contains(out, "n1") {
			return fmt.Errorf("the ReplicaSet's Running pods after the drain: %q, want two, none on n1", out)
		}
		return nil
	})
	// A node joining makes the DaemonSet look at every node again: n1,
	// cordoned, still has its one pod and gets no second.
	registerAgent(t, srv.URL, "n4")
	heartbeat(t, srv.URL, "n4", healthyMetrics())
	eventually(t, 60*time.Second, func() error {
		if got := nodesOf(logsOn()); !slices.Equal(got, []string{"n1", "n2", "n3", "n4"}) {
			return fmt.Errorf("after the drain and n4's arrival, the DaemonSet's pods are on %v", got)
		}
		return nil
	})
	if out := kc.must(t, "get", "pods", "-l", "app=logs", "--field-selector", "spec.nodeName=n1", "-o", "name"); len(strings.Fields(out)) != 1 {
		t.Errorf("the DaemonSet's pods on the cordoned n1: %q, want one", out)
	}

	if out := kc.must(t, "delete", "ds", "logs"); !strings.Contains(out, `daemonset.apps "logs" deleted`) {
		t.Errorf("kubectl delete said %q", out)
	}
	eventually(t, 60*time.Second, func() error {
		if out := kc.must(t, "get", "pods", "-l", "app=logs", "-o", "name"); strings.TrimSpace(out) != "" {
			return fmt.Errorf("a deleted DaemonSet's pods: %s", out)
		}
		return nil
	})
}

// TestKubectlDaemonSetRolloutHistoryAndUndo runs kubectl rollout history
// and undo of a DaemonSet against herd serve --demo 2: each template is a
// revision kubectl lists, and rollout undo brings the one before back
// on every node, its revision renumbered as the newest.
func TestKubectlDaemonSetRolloutHistoryAndUndo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	path := filepath.Join(t.TempDir(), "logs.yaml")
	manifest := strings.Replace(strings.Split(dsManifest, "---")[0], "      nodeSelector: {herd.dev/kind: linux}\n", "", 1)
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	kc.must(t, "apply", "-f", path)
	images := func(want string) {
		t.Helper()
		eventually(t, 120*time.Second, func() error {
			out := kc.must(t, "get", "pods", "-l", "app=logs", "-o",
				`jsonpath={range .items[*]}{.spec.containers[0].image} {.status.conditions[?(@.type=="Ready")].status} {.metadata.deletionTimestamp}{"\n"}{end}`)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 2 {
				return fmt.Errorf("pods %q", out)
			}
			for _, l := range lines {
				if strings.TrimSpace(l) != want+" True" {
					return fmt.Errorf("pods %q, want two Ready of %s", out, want)
				}
			}
			return nil
		})
	}
	revisions := func() []string {
		t.Helper()
		out := kc.must(t, "rollout", "history", "daemonset/logs")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "daemonset.apps/logs") {
			t.Fatalf("kubectl rollout history said %q", out)
		}
		_, rows := columns(strings.Join(lines[1:], "\n"))
		var revs []string
		for _, r := range rows {
			revs = append(revs, r[0])
		}
		return revs
	}
	images("fluent-bit:3")
	kc.must(t, "set", "image", "daemonset/logs", "fluent=fluent-bit:4")
	images("fluent-bit:4")
	if got := revisions(); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("history after set image: %q", got)
	}
	if out := kc.must(t, "rollout", "history", "daemonset/logs", "--revision=1"); !strings.Contains(out, "fluent-bit:3") {
		t.Errorf("kubectl rollout history --revision=1 said %q", out)
	}
	if out := kc.must(t, "rollout", "undo", "daemonset/logs"); !strings.Contains(out, "daemonset.apps/logs rolled back") {
		t.Errorf("kubectl rollout undo said %q", out)
	}
	images("fluent-bit:3")
	eventually(t, 30*time.Second, func() error {
		if got := revisions(); !slices.Equal(got, []string{"2", "3"}) {
			return fmt.Errorf("history after the undo: %q", got)
		}
		return nil
	})
}

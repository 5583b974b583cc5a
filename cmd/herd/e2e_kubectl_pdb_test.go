package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/domain"
)

// pdbManifest is a Deployment of three web pods that only the nodes
// labelled pool=web take, and a budget that lets at most one of them be
// unavailable.
const pdbManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      nodeSelector: {pool: web}
      containers:
      - name: web
        image: nginx
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: web}
`

// TestKubectlDrainRespectsBudget: kubectl drain of a node holding two
// pods of a Deployment whose budget allows one unavailable, and a pod of
// the demo's DaemonSet, succeeds with --ignore-daemonsets, and
// the log shows that no moment had more than one of the three pods not
// Ready or gone: the second eviction was refused (429) and retried by
// kubectl until the first pod's replacement was Running and Ready.
func TestKubectlDrainRespectsBudget(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "4"}})
	kc := newKubectl(t, srv.URL)
	// Two nodes without memory-pressure episodes take the web pods
	// (demo-linux-03 has them, and the Pico runs no herd pods); the
	// demo's own pods run anywhere.
	pool := []string{"demo-linux-00", "demo-illumos-01"}
	eventually(t, 90*time.Second, func() error {
		out := kc.must(t, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}`)
		for _, n := range pool {
			if !strings.Contains(out, n+"=True") {
				return fmt.Errorf("node %s is not Ready yet: %s", n, out)
			}
		}
		return nil
	})
	kc.must(t, append([]string{"label", "node"}, append(pool, "pool=web")...)...)
	path := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(path, []byte(pdbManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	kc.must(t, "create", "-f", path)
	// kubectl's own generator makes a budget too; both bounds are
	// refused in kube-apiserver's words.
	if out := kc.must(t, "create", "pdb", "other", "--selector=app=other", "--min-available=50%"); !strings.Contains(out, "poddisruptionbudget.policy/other created") {
		t.Errorf("kubectl create pdb said %q", out)
	}
	if res := kc.run(t, "patch", "pdb", "other", "--type=merge", "-p", `{"spec":{"maxUnavailable":1}}`); res.Code == 0 ||
		!strings.Contains(res.Stderr, "minAvailable and maxUnavailable cannot be both set") {
		t.Errorf("a budget with both bounds: exit %d, %s", res.Code, res.Stderr)
	}

	// webPods counts the web pods Running, Ready and not leaving, by node.
	webPods := func() map[string]int {
		out := kc.must(t, "get", "pods", "-l", "app=web", "-o",
			`jsonpath={range .items[*]}{.spec.nodeName} {.status.conditions[?(@.type=="Ready")].status} {.metadata.deletionTimestamp}{"\n"}{end}`)
		byNode := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[1] == "True" {
				byNode[f[0]]++
			}
		}
		return byNode
	}
	var node string
	eventually(t, 90*time.Second, func() error {
		byNode := webPods()
		total := 0
		for n, c := range byNode {
			total += c
			if node == "" || c > byNode[node] {
				node = n
			}
		}
		if total != 3 || byNode[node] < 2 {
			return fmt.Errorf("the web pods are not Ready on the pool yet (or spread one to a node): %v", byNode)
		}
		if out := kc.must(t, "get", "pdb", "web", "-o", "jsonpath={.status.disruptionsAllowed}"); out != "1" {
			return fmt.Errorf("the budget allows %q disruptions, want 1", out)
		}
		return nil
	})
	// kubectl's columns, split where it pads them (their names hold
	// spaces).
	lines := strings.Split(strings.TrimSpace(kc.must(t, "get", "pdb", "web")), "\n")
	columns := regexp.MustCompile(`\s{2,}`)
	if len(lines) != 2 || strings.Join(columns.Split(lines[0], -1), ",") != "NAME,MIN AVAILABLE,MAX UNAVAILABLE,ALLOWED DISRUPTIONS,AGE" ||
		!strings.HasPrefix(strings.Join(columns.Split(lines[1], -1), ","), "web,N/A,1,1,") {
		t.Errorf("kubectl get pdb:\n%s", strings.Join(lines, "\n"))
	}

	res := kc.run(t, "drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--grace-period=1", "--timeout=180s")
	if res.Code != 0 {
		t.Fatalf("kubectl drain %s: exit %d\n%s\n%s", node, res.Code, res.Stdout, res.Stderr)
	}
	// kubectl said why it waited, in kube-apiserver's words.
	if !strings.Contains(res.Stderr+res.Stdout, "Cannot evict pod as it would violate the pod's disruption budget") {
		t.Logf("kubectl drain was never refused (the replacement was Ready before it asked again):\n%s", res.Stderr)
	}
	eventually(t, 90*time.Second, func() error {
		if byNode := webPods(); byNode[node] != 0 || byNode[otherThan(pool, node)] != 3 {
			return fmt.Errorf("after the drain of %s: %v", node, byNode)
		}
		return nil
	})
	checkBudgetKept(t, srv.URL, "default", "web", 3, 1)
	// The demo's DaemonSet pod stays on the drained node, as
	// --ignore-daemonsets leaves it.
	if out := kc.must(t, "get", "pods", "-n", "demo", "-l", "app=log-shipper", "--field-selector", "spec.nodeName="+node, "-o", "name"); strings.TrimSpace(out) == "" {
		t.Errorf("the DaemonSet's pod left the drained node %s", node)
	}
}

// otherThan is the one of two nodes that is not node.
func otherThan(two []string, node string) string {
	if two[0] == node {
		return two[1]
	}
	return two[0]
}

// checkBudgetKept reads every event of the pods of namespace from herd's
// log, in the order herd recorded them, folds them into the pods as the
// views do, and fails if after the pods labelled app=APP (a workload's,
// its budget's selection) were first all Ready, any event left more
// than maxUnavailable of them not
// Ready, being deleted, or gone. It also requires that some of its pods
// were evicted (the check saw a drain at all).
func checkBudgetKept(t *testing.T, base, namespace, app string, replicas, maxUnavailable int) {
	t.Helper()
	pods := map[string]domain.Pod{}
	healthy := func() int {
		n := 0
		for _, p := range pods {
			if p.Exists() && !p.Terminating() && domain.PodReady(p) && controlledBy(p, app) {
				n++
			}
		}
		return n
	}
	var (
		whole, evicted int
		after          int64
		worst          = replicas
	)
	for {
		var page struct {
			Items []struct {
				Position int64           `json:"position"`
				Stream   string          `json:"stream"`
				Type     string          `json:"type"`
				Payload  json.RawMessage `json:"payload"`
			} `json:"items"`
		}
		q := url.Values{"stream": {"pod/" + namespace + "/"}, "limit": {"1000"}, "after": {strconv.FormatInt(after, 10)}}
		mustCall(t, http.StatusOK, http.MethodGet, base+"/apis/herd.dev/v1/auditevents?"+q.Encode(), nil, &page)
		for _, rec := range page.Items {
			after = rec.Position
			ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
			if err != nil {
				t.Fatalf("event %d: %v", rec.Position, err)
			}
			if _, ok := ev.(domain.PodCreated); ok {
				pods[rec.Stream] = domain.Pod{}
			}
			was := pods[rec.Stream]
			p := domain.EvolvePod(was, ev)
			pods[rec.Stream] = p
			if !was.Terminating() && p.Terminating() && controlledBy(p, app) {
				if c, ok := p.Condition(domain.PodConditionDisruptionTarget); ok && c.Reason == domain.ReasonEvictionByEvictionAPI {
					evicted++
				}
			}
			h := healthy()
			if h == replicas {
				whole++
			}
			if whole == 0 {
				continue
			}
			worst = min(worst, h)
			if replicas-h > maxUnavailable {
				t.Errorf("at position %d (%s %s) only %d of %d pods of %s were Ready: more than %d unavailable",
					rec.Position, rec.Type, rec.Stream, h, replicas, app, maxUnavailable)
			}
		}
		if len(page.Items) < 1000 {
			break
		}
	}
	if whole == 0 || evicted == 0 {
		t.Errorf("the log shows %s whole %d times and %d of its pods evicted: nothing was checked", app, whole, evicted)
	}
	t.Logf("app=%s: %d pods evicted, never fewer than %d of %d Ready", app, evicted, worst, replicas)
}

// controlledBy reports whether the pod is one of the workload labelled
// app=APP, which its budget selects.
func controlledBy(p domain.Pod, app string) bool { return p.Labels["app"] == app }

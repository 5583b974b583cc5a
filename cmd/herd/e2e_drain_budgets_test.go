package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// The drain at scale: 10 Deployments of 10 pods, each with a budget of
// at most one unavailable, all on one node that herd's own drain empties.
const (
	scaleSets     = 10
	scaleReplicas = 10
)

// bigNode makes an agent node's fixture hold the 100 pods and more (an
// agent's max-jobs bounds its pods too).
func bigNode(n map[string]any) {
	n["metadata"].(map[string]any)["annotations"] = map[string]any{"herd.dev/max-jobs": "250"}
	st := n["status"].(map[string]any)
	st["capacity"] = map[string]any{"cpu": "64", "memory": "256Gi", "pods": "250"}
	st["allocatable"] = map[string]any{"cpu": "64", "memory": "256Gi", "pods": "250"}
}

// TestDrainWithinBudgetsAtScale: herd's own drain of a node holding 100
// pods of 10 Deployments, each with a budget of maxUnavailable 1, moves
// every pod to the other node, and the log shows no budget ever broken.
// It logs how long the drain took; BENCHMARKS.md records it.
func TestDrainWithinBudgetsAtScale(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	for _, n := range []string{"big-a", "big-b"} {
		mustCall(t, http.StatusOK, http.MethodPut, agentPath(srv.URL, n)+"/registration", nodeJSON(t, "agent-node.json", n, bigNode), nil)
		heartbeat(t, srv.URL, n, healthyMetrics())
	}
	// The nodes' agents keep reporting, as real ones would, for as long
	// as the test runs (a node silent for 40 s would be NotReady, and its
	// NoExecute taint would evict the pods regardless of the budgets).
	ctx, stop := context.WithCancel(context.Background())
	var beats sync.WaitGroup
	t.Cleanup(func() { stop(); beats.Wait() })
	beats.Go(func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				for _, n := range []string{"big-a", "big-b"} {
					req, err := newJSONRequest(http.MethodPost, agentPath(srv.URL, n)+"/heartbeat", heartbeatBody(healthyMetrics()))
					if err != nil {
						t.Error(err)
						return
					}
					resp, err := apiClient.Do(req.WithContext(ctx))
					if err != nil {
						continue // herd is stopping with the test
					}
					_ = resp.Body.Close()
				}
			}
		}
	})
	kc := newKubectl(t, srv.URL)
	kc.must(t, "cordon", "big-b")
	var manifest strings.Builder
	for i := range scaleSets {
		fmt.Fprintf(&manifest, `apiVersion: apps/v1
kind: Deployment
metadata: {name: app-%[1]d}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: app-%[1]d}}
  template:
    metadata: {labels: {app: app-%[1]d}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: app, image: nginx}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: app-%[1]d}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: app-%[1]d}}
---
`, i, scaleReplicas)
	}
	path := filepath.Join(t.TempDir(), "apps.yaml")
	if err := os.WriteFile(path, []byte(manifest.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	kc.must(t, "create", "-f", path)
	readyOn := func() map[string]int {
		var pods corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/namespaces/default/pods", nil, &pods)
		on := map[string]int{}
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodRunning {
				on[string(p.Status.Phase)]++ // what an unmet wait shows
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
					on[p.Spec.NodeName]++
				}
			}
		}
		return on
	}
	eventually(t, 120*time.Second, func() error {
		if on := readyOn(); on["big-a"] != scaleSets*scaleReplicas {
			return fmt.Errorf("pods Ready: %v, want %d on big-a", on, scaleSets*scaleReplicas)
		}
		var budgets policyv1.PodDisruptionBudgetList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/policy/v1/namespaces/default/poddisruptionbudgets", nil, &budgets)
		for _, b := range budgets.Items {
			if b.Status.DisruptionsAllowed != 1 {
				return fmt.Errorf("budget %s allows %d", b.Name, b.Status.DisruptionsAllowed)
			}
		}
		return nil
	})
	kc.must(t, "uncordon", "big-b")

	start := time.Now()
	mustCall(t, http.StatusOK, http.MethodPost, agentPath(srv.URL, "big-a")+"/drain", map[string]any{"gracePeriodSeconds": 1}, nil)
	var drained time.Duration
	eventually(t, 300*time.Second, func() error {
		var n corev1.Node
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes/big-a", nil, &n)
		if st := n.Annotations["herd.dev/agent-state"]; st != "Drained" {
			return fmt.Errorf("big-a is %s", st)
		}
		drained = time.Since(start)
		return nil
	})
	eventually(t, 120*time.Second, func() error {
		if on := readyOn(); on["big-b"] != scaleSets*scaleReplicas || on["big-a"] != 0 {
			return fmt.Errorf("pods Ready after the drain: %v, want all %d on big-b", on, scaleSets*scaleReplicas)
		}
		return nil
	})
	rescheduled := time.Since(start)
	for i := range scaleSets {
		checkBudgetKept(t, srv.URL, "default", fmt.Sprintf("app-%d", i), scaleReplicas, 1)
	}
	t.Logf("drained %d pods of %d Deployments within their budgets: node Drained after %s, every pod Ready on the other node after %s",
		scaleSets*scaleReplicas, scaleSets, drained.Round(time.Millisecond), rescheduled.Round(time.Millisecond))
}

package main

import (
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"herd/events/pgtest"
)

// TestLeaderKilledWhileANodeFallsSilent: two herd serve replicas share one
// PostgreSQL database; a node reports through the replica that does not
// run the reconcilers, then falls silent, and a few seconds into its
// grace period the replica that runs them is killed with SIGKILL. The
// survivor takes the reconcilers over and still marks the node: its Ready
// condition goes Unknown, not before the grace period ran out. How late
// it is marked is logged (BENCHMARKS.md keeps the figure).
func TestLeaderKilledWhileANodeFallsSilent(t *testing.T) {
	t.Parallel()
	const grace = 10 * time.Second
	url := pgtest.URL(t)
	args := []string{"--database", url, "--node-monitor-period", "200ms",
		"--node-monitor-grace-period", grace.String(), "--node-startup-grace-period", grace.String()}
	leader := startServe(t, serveOptions{Args: append(args, "--replica-name", "east")})
	eventually(t, readyTimeout, func() error { return leads(t, leader, "led by east (this replica)", 1) })
	other := startServe(t, serveOptions{Args: append(args, "--replica-name", "west")})
	eventually(t, readyTimeout, func() error { return leads(t, other, "led by east since", 0) })

	registerAgent(t, other.URL, "web-01")
	heartbeat(t, other.URL, "web-01", healthyMetrics())
	eventually(t, watchTimeout, func() error {
		if n := getNode(t, other.URL, "web-01"); !nodeReady(n) {
			return fmt.Errorf("web-01 is not Ready yet: %v", n.Status.Conditions)
		}
		return nil
	})
	heartbeat(t, other.URL, "web-01", healthyMetrics())
	silentSince := time.Now()

	// The leader dies 3 s into web-01's silence, on the wall clock both
	// processes run on: the moment is the scenario, not a wait for
	// something to happen, so there is no condition to wait on instead.
	time.Sleep(3 * time.Second)
	if _, err := leader.signal(syscall.SIGKILL, stopTimeout); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	var marked time.Time
	eventually(t, 60*time.Second, func() error { return leads(t, other, "led by west (this replica)", 1) })
	eventually(t, 60*time.Second, func() error {
		n := getNode(t, other.URL, "web-01")
		if ready := readyStatus(n); ready != corev1.ConditionUnknown {
			return fmt.Errorf("web-01 is Ready %s, %s after its last heartbeat", ready, time.Since(silentSince).Round(100*time.Millisecond))
		}
		marked = time.Now()
		return nil
	})
	if early := marked.Sub(silentSince); early < grace {
		t.Errorf("web-01 was marked %s after its last heartbeat, before its %s grace period ran out", early, grace)
	}
	t.Logf("the reconcilers' leader was killed %s into web-01's silence; web-01 was marked Unknown %s after its grace period ran out",
		killed.Sub(silentSince).Round(100*time.Millisecond), (marked.Sub(silentSince) - grace).Round(100*time.Millisecond))
}

// getNode reads a node through the Kubernetes API.
func getNode(t *testing.T, base, name string) corev1.Node {
	t.Helper()
	var n corev1.Node
	mustCall(t, http.StatusOK, http.MethodGet, base+"/api/v1/nodes/"+name, nil, &n)
	return n
}

// readyStatus is a node's Ready condition's status, "" without one.
func readyStatus(n corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

package main

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// demoStartLine is what serve --demo logs as it starts its fleet.
var demoStartLine = regexp.MustCompile(`demo fleet started.*?"nodes": (\d+), "pods": (\d+)`)

// TestDemoStartLineCountsThePodsThatRun: the line herd serve --demo 6
// (make run) logs as it starts names as many pods as then run in the
// namespace "demo": the Deployments' replicas and the DaemonSet's pod on
// every demo node that runs pods.
func TestDemoStartLineCountsThePodsThatRun(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--demo", "6"}})
	// The demo starts in its own start hook, which may run after the API
	// is already answering: wait for its line rather than read at once.
	var m []string
	eventually(t, 30*time.Second, func() error {
		if m = demoStartLine.FindStringSubmatch(srv.output.String()); m == nil {
			return fmt.Errorf("serve --demo 6 logged no demo start line with nodes and pods:\n%s", srv.output.String())
		}
		return nil
	})
	if m[1] != "6" {
		t.Errorf("the demo start line counts %s nodes, want 6", m[1])
	}
	said, err := strconv.Atoi(m[2])
	if err != nil {
		t.Fatal(err)
	}
	var running, all int
	eventually(t, 90*time.Second, func() error {
		var pods corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/namespaces/demo/pods", nil, &pods)
		running, all = 0, len(pods.Items)
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		if running < said || all != running {
			return fmt.Errorf("%d of %d demo pods Running, the start line says %d", running, all, said)
		}
		return nil
	})
	if running != said {
		t.Errorf("%d demo pods run; the start line said %d", running, said)
	}
	srv.stop()
}

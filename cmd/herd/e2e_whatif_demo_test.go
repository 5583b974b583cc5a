package main

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// whatIfSame is the what-if's count of the decisions it made as herd did
// and of those only one of them made.
var whatIfSame = regexp.MustCompile(`(\d+) decisions of herd's reconcilers the same; (\d+) only herd made, (\d+) only the what-if would have made`)

// TestWhatIfReproducesTheDemo: herd serve --demo 4 (make run, the first
// thing a user tries) on the wall clock, its workloads created, placed
// and started; herd what-if with herd's own settings then makes every
// decision herd made and no other — over the whole log, where herd's
// reconcilers recorded the workloads' statuses milliseconds apart as
// they worked, and over a window that starts while the demo's pods run
// on herd's mock runtime, which is no restart of herd. A drain of
// demo-linux-00 in the what-if evicts its pods and places them anew, and
// says the drain is why they moved.
func TestWhatIfReproducesTheDemo(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--demo", "4"}})
	podsOn := map[string]int{}
	eventually(t, 90*time.Second, func() error {
		var pods corev1.PodList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/namespaces/demo/pods", nil, &pods)
		running := 0
		clear(podsOn)
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				running++
				if strings.HasPrefix(p.Name, "log-shipper-") {
					continue
				}
				podsOn[p.Spec.NodeName]++
			}
		}
		if running < 11 || running != len(pods.Items) { // 8 of the Deployments, 3 of the DaemonSet
			return fmt.Errorf("%d of %d demo pods Running, want 11", running, len(pods.Items))
		}
		return nil
	})
	if podsOn["demo-linux-00"] == 0 {
		t.Fatalf("demo-linux-00 runs none of the Deployments' pods (%v): a drain of it would move nothing", podsOn)
	}
	// A window that starts once every pod runs: the second after now, and
	// every node's report after it.
	since := time.Now().Add(time.Second).Truncate(time.Second)
	eventually(t, 60*time.Second, func() error {
		var nodes corev1.NodeList
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes", nil, &nodes)
		for _, n := range nodes.Items {
			i := slices.IndexFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
			if i < 0 || !n.Status.Conditions[i].LastHeartbeatTime.After(since) {
				return fmt.Errorf("node %s has not reported since %s", n.Name, since.Format(time.TimeOnly))
			}
		}
		if len(nodes.Items) != 4 {
			return fmt.Errorf("%d nodes, want the demo's 4", len(nodes.Items))
		}
		return nil
	})
	srv.stop()

	same := func(what string, args ...string) {
		t.Helper()
		out := mustHerd(t, append([]string{"what-if", "--data-dir", srv.DataDir, "--show-decisions"}, args...)...).Stdout
		m := whatIfSame.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s: the what-if says no counts:\n%s", what, out)
		}
		if m[2] != "0" || m[3] != "0" {
			t.Errorf("%s: the what-if with herd's own settings differs from herd:\n%s", what, out)
		}
	}
	same("the whole demo", "--since", "1h")
	same("a window from "+since.Format(time.TimeOnly)+", the demo's pods running", "--since", since.UTC().Format(time.RFC3339))

	out := mustHerd(t, "what-if", "--data-dir", srv.DataDir, "--since", "1h", "--drain", "demo-linux-00@"+since.UTC().Format(time.RFC3339)).Stdout
	if !strings.Contains(out, "in the what-if an operator drains node demo-linux-00 at ") ||
		!regexp.MustCompile(`pod demo/\S+: was not evicted; would have been from demo-linux-00 at \S+ by drain`).MatchString(out) {
		t.Fatalf("the what-if with demo-linux-00 drained evicts none of its pods:\n%s", out)
	}
	moved := 0
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.Contains(l, "; would have been on ") {
			continue
		}
		moved++
		var why []string
		for _, c := range lines[i+1:] {
			if !strings.HasPrefix(c, "      ") {
				break
			}
			why = append(why, strings.TrimSpace(c))
		}
		drained := slices.ContainsFunc(why, func(s string) bool {
			return strings.HasPrefix(s, "after NodeDrainStarted on node/demo-linux-00 by what-if at ")
		})
		evicted := slices.ContainsFunc(why, func(s string) bool {
			return strings.HasPrefix(s, "after PodDeletionRequested on pod/demo/") && strings.Contains(s, " by system:herd:drain at ")
		})
		if !strings.HasPrefix(strings.Join(why, "\n"), "because PodScheduled on pod/demo/") || !drained || !evicted {
			t.Errorf("%s\n  gives as its causes:\n  %s\n  want the placement, the pod made anew, the drain's eviction and the drain", l, strings.Join(why, "\n  "))
		}
	}
	if want := podsOn["demo-linux-00"]; moved == 0 || moved > want {
		t.Errorf("the what-if with demo-linux-00 drained places %d workloads' pods anew, want 1 to %d:\n%s", moved, want, out)
	}
	if n, _ := strconv.Atoi(whatIfSame.FindStringSubmatch(out)[3]); n == 0 {
		t.Errorf("the drain made no decision herd did not:\n%s", out)
	}
}

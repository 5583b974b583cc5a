package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/cmd/herd/whatif"
)

// whatIfAnswer is a what-if's answer as the API gives it.
type whatIfAnswer struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Since        string `json:"since"`
		NodeFailures []struct {
			Node, At string
		} `json:"nodeFailures"`
		Settings map[string]any `json:"settings"`
	} `json:"spec"`
	Status whatif.Report `json:"status"`
}

// postWhatIf posts a what-if to serve and returns the answer's code and
// body: a what-if runs for seconds, longer than apiClient waits.
func postWhatIf(t *testing.T, url string, body any) (int, []byte) {
	t.Helper()
	req, err := newJSONRequest(http.MethodPost, url+"/apis/herd.dev/v1/whatifs", body)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("POST whatifs: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// refusedNaming checks a 400 whose Status names each of fields among its
// causes and says each of words.
func refusedNaming(t *testing.T, what string, code int, body []byte, fields []string, words ...string) {
	t.Helper()
	if code != http.StatusBadRequest {
		t.Errorf("%s: answer %d %s, want 400", what, code, body)
		return
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("%s: the refusal is no Status: %v: %s", what, err, body)
	}
	for _, f := range fields {
		if st.Details == nil || !slices.ContainsFunc(st.Details.Causes, func(c metav1.StatusCause) bool { return c.Field == f }) {
			t.Errorf("%s: the refusal names no field %s: %s", what, f, body)
		}
	}
	for _, w := range words {
		if !strings.Contains(st.Message, w) {
			t.Errorf("%s: the refusal %q does not say %q", what, st.Message, w)
		}
	}
}

// TestWhatIfOverTheAPI: an operator asks herd serve, over HTTP, what if
// demo-linux-00 had failed a second into the window and herd's grace
// period had been 5 s: the answer is the report as JSON, demo-linux-00
// marked NotReady in the what-if with the failure among its causes,
// and the question given back with herd serve's own settings for those
// not asked about. Questions asked wrongly are refused with 400 naming
// the field, and the real log is not written.
func TestWhatIfOverTheAPI(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	// Every node reports more than 10 s into the window: time for a 5 s
	// grace period to run out after a failure at its first second.
	since := demoWindow(t, srv.URL, 2, 12*time.Second)
	fails := since.Add(time.Second).UTC().Format(time.RFC3339)
	question := map[string]any{"apiVersion": "herd.dev/v1", "kind": "WhatIf", "spec": map[string]any{
		"since":        since.UTC().Format(time.RFC3339),
		"settings":     map[string]any{"nodeMonitorGracePeriod": "5s", "nodeMonitorPeriod": "1s"},
		"nodeFailures": []map[string]string{{"node": "demo-linux-00", "at": fails}},
	}}
	code, body := postWhatIf(t, srv.URL, question)
	if code != http.StatusOK {
		t.Fatalf("the what-if: answer %d %s, want 200", code, body)
	}
	var a whatIfAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("the answer is no WhatIf: %v\n%s", err, body)
	}
	if a.Kind != "WhatIf" || a.APIVersion != "herd.dev/v1" {
		t.Errorf("the answer is a %s %s, want herd.dev/v1 WhatIf", a.APIVersion, a.Kind)
	}
	if got := a.Spec.Settings["nodeMonitorGracePeriod"]; got != "5s" {
		t.Errorf("the answer's grace period is %v, want the 5s asked", got)
	}
	if got := a.Spec.Settings["nodeStartupGracePeriod"]; got != "1m0s" {
		t.Errorf("the answer's startup grace period is %v, want herd serve's own 1m0s", got)
	}
	if len(a.Spec.NodeFailures) != 1 || a.Spec.NodeFailures[0].At != fails {
		t.Errorf("the answer's failures are %+v, want demo-linux-00 at %s", a.Spec.NodeFailures, fails)
	}
	if a.Status.Events == 0 || a.Status.Inputs == 0 {
		t.Errorf("the what-if replayed %d events, %d inputs: want the window's", a.Status.Events, a.Status.Inputs)
	}
	i := slices.IndexFunc(a.Status.Nodes, func(d whatif.NodeDifference) bool { return d.Node == "demo-linux-00" })
	if i < 0 {
		t.Fatalf("the what-if does not mark demo-linux-00, failed with a 5 s grace period:\n%s", body)
	}
	d := a.Status.Nodes[i]
	if len(d.WhatIf) == 0 || len(d.Actual) != 0 {
		t.Errorf("demo-linux-00: NotReady at %v in herd and %v in the what-if, want only in the what-if", d.Actual, d.WhatIf)
	}
	if len(d.WhatIf) > 0 && d.WhatIf[0].Before(since.Add(6*time.Second)) {
		t.Errorf("demo-linux-00 marked at %s in the what-if, before its 5 s grace period from %s ran out", d.WhatIf[0], fails)
	}
	if len(d.Causes) == 0 || !strings.Contains(d.Causes[0].Stream, "demo-linux-00") {
		t.Errorf("demo-linux-00's mark in the what-if has causes %+v, want the node's", d.Causes)
	}
	if slices.ContainsFunc(a.Status.Nodes, func(d whatif.NodeDifference) bool { return d.Node == "demo-linux-01" }) {
		t.Errorf("demo-linux-01, which kept reporting, fares otherwise in the what-if:\n%s", body)
	}

	// herd what-if --server asks the same of the server and prints the
	// answer as a local what-if does.
	out := mustHerd(t, "what-if", "--server", srv.URL, "--since", since.UTC().Format(time.RFC3339),
		"--node-monitor-grace-period", "5s", "--node-monitor-period", "1s", "--node-fails", "demo-linux-00@"+fails).Stdout
	for _, want := range []string{
		"with --node-monitor-grace-period 5s --node-monitor-period 1s --node-startup-grace-period 1m0s:",
		"in the what-if node demo-linux-00 fails at " + fails,
		"node demo-linux-00: did not go NotReady; would have at ",
		"decisions of herd's reconcilers the same",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("herd what-if --server does not say %q:\n%s", want, out)
		}
	}
	// The threshold and a budget reach the server: the answer is run
	// with the one, and the other, a budget the log does not hold, is
	// refused by the server naming it.
	out = mustHerd(t, "what-if", "--server", srv.URL, "--since", since.UTC().Format(time.RFC3339), "--unhealthy-fleet-threshold", "0.7").Stdout
	if !strings.Contains(out, "--node-startup-grace-period 1m0s --unhealthy-fleet-threshold 0.7:") {
		t.Errorf("herd what-if --server --unhealthy-fleet-threshold 0.7 does not say it ran with it:\n%s", out)
	}
	res := herd(t, nil, "what-if", "--server", srv.URL, "--since", since.UTC().Format(time.RFC3339), "--budget", "default/nope:minAvailable=1")
	if res.Code == 0 || !strings.Contains(res.Stderr, "spec.budgets[0]") {
		t.Errorf("herd what-if --server --budget of a budget the log does not hold: exit %d, stderr %q: want the server's refusal naming spec.budgets[0]", res.Code, res.Stderr)
	}
	res = herd(t, nil, "what-if", "--server", srv.URL, "--since", "48h")
	if res.Code == 0 || !strings.Contains(res.Stderr, "at most 24h0m0s") {
		t.Errorf("herd what-if --server --since 48h: exit %d, stderr %q: want the server's refusal", res.Code, res.Stderr)
	}
	res = herd(t, nil, "what-if", "--server", srv.URL, "--data-dir", srv.DataDir, "--since", "1h")
	if res.Code == 0 || !strings.Contains(res.Stderr, "--data-dir and --server") {
		t.Errorf("herd what-if --server --data-dir: exit %d, stderr %q: want a refusal of the two", res.Code, res.Stderr)
	}

	// Wrong questions: each refused, naming its field.
	spec := func(s map[string]any) map[string]any { return map[string]any{"spec": s} }
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{}))
	refusedNaming(t, "no since", code, body, []string{"spec.since"})
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "yesterday"}))
	refusedNaming(t, "a since that is no time", code, body, []string{"spec.since"}, "RFC 3339")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "48h"}))
	refusedNaming(t, "a window of two days", code, body, []string{"spec.since"}, "at most 24h0m0s", "--what-if-max-window")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "until": "2h"}))
	refusedNaming(t, "an until before since", code, body, []string{"spec.until"}, "before since")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"nodeMonitorGracePeriod": "-5s"}}))
	refusedNaming(t, "a negative grace period", code, body, []string{"spec.settings.nodeMonitorGracePeriod"}, "positive")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"unhealthyFleetThreshold": 0}}))
	refusedNaming(t, "a threshold of 0", code, body, []string{"spec.settings.unhealthyFleetThreshold"}, "above 0 and at most 1")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"nodeEvictionRate": -1}}))
	refusedNaming(t, "a negative eviction rate", code, body, []string{"spec.settings.nodeEvictionRate"}, "0 or more")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"secondaryNodeEvictionRate": -0.5}}))
	refusedNaming(t, "a negative secondary eviction rate", code, body, []string{"spec.settings.secondaryNodeEvictionRate"}, "0 or more")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"largeFleetSizeThreshold": 2.5}}))
	refusedNaming(t, "a fleet size of two and a half nodes", code, body, []string{"spec.settings.largeFleetSizeThreshold"}, "whole number of nodes")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"schedulerScoringStrategy": "Balanced"}}))
	refusedNaming(t, "a scoring strategy herd has not", code, body, []string{"spec.settings.schedulerScoringStrategy"}, "MostAllocated")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"schedulerScoringStrategy": "RequestedToCapacityRatio"}}))
	refusedNaming(t, "RequestedToCapacityRatio without a shape", code, body, []string{"spec.settings.schedulerScoringShape"}, "needs --scheduler-scoring-shape")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"schedulerScoringStrategy": "RequestedToCapacityRatio", "schedulerScoringShape": "0=0,100=20"}}))
	refusedNaming(t, "a shape scoring 20", code, body, []string{"spec.settings.schedulerScoringShape"}, "score 20: want 0 to 10")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"nodeMonitorGracePeriod": "1s", "nodeMonitorPeriod": "5s"}}))
	refusedNaming(t, "a grace period shorter than the monitor period", code, body, []string{"spec.settings.nodeMonitorGracePeriod"}, "must be longer than --node-monitor-period")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"reconcilers": []string{"*", "-nosuch"}}}))
	refusedNaming(t, "a reconciler herd has not", code, body, []string{"spec.settings.reconcilers"}, "nosuch")
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "nodeFailures": []map[string]string{{"node": "Web_01", "at": "10m"}}, "drains": []map[string]string{{"node": "web-02", "at": "then"}}}))
	refusedNaming(t, "a bad node and a bad time", code, body, []string{"spec.nodeFailures[0].node", "spec.drains[0].at"})
	code, body = postWhatIf(t, srv.URL, spec(map[string]any{"since": "1h", "settings": map[string]any{"gracePeriod": "5s"}}))
	refusedNaming(t, "a setting herd has not", code, body, nil, "gracePeriod")
	code, body = postWhatIf(t, srv.URL, []byte(`{"spec": {"since": "1h"}} {}`))
	refusedNaming(t, "two documents", code, body, nil, "more than one")

	// Nothing the what-ifs did reached the real log: the drains, the
	// failures, the marks were the scratch log's.
	var audit struct {
		Items []struct{ Actor, Type, Stream string } `json:"items"`
	}
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?actor=what-if&limit=10", nil, &audit)
	if len(audit.Items) != 0 {
		t.Errorf("the real log holds events of the what-if: %+v", audit.Items)
	}
}

// TestWhatIfOverTheAPIStopsAtItsTimeLimit: a what-if that runs past
// --what-if-timeout is stopped and answered 504, saying why and what to
// ask instead, and herd serves on.
func TestWhatIfOverTheAPIStopsAtItsTimeLimit(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--demo", "1", "--what-if-timeout", "1ms"}})
	code, body := postWhatIf(t, srv.URL, []byte(`{"spec": {"since": "1h"}}`))
	if code != http.StatusGatewayTimeout {
		t.Fatalf("a what-if past its limit: answer %d %s, want 504", code, body)
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil || st.Reason != metav1.StatusReasonTimeout ||
		!strings.Contains(st.Message, "within herd's limit of 1ms (--what-if-timeout)") || !strings.Contains(st.Message, "shorter window") {
		t.Errorf("the 504 says %s, want a Timeout naming --what-if-timeout and a shorter window", body)
	}
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/nodes", nil, nil)
}

// demoWindow waits until herd serve's demo of n nodes is up and every
// node has reported more than reach into a window that starts once they
// are all there, and returns the window's start: a what-if over it sees
// each node report both before and after any moment near its start.
func demoWindow(t *testing.T, url string, n int, reach time.Duration) time.Time {
	t.Helper()
	var since time.Time
	eventually(t, 90*time.Second, func() error {
		var nodes corev1.NodeList
		mustCall(t, http.StatusOK, http.MethodGet, url+"/api/v1/nodes", nil, &nodes)
		if len(nodes.Items) != n {
			return fmt.Errorf("%d nodes, want the demo's %d", len(nodes.Items), n)
		}
		if since.IsZero() {
			// The window opens once every node has reported Ready: a
			// node whose first report came after a failure asked for
			// early in the window would be a node that never started
			// in the what-if, under its startup grace period instead
			// of the one asked about (as on a loaded machine).
			for _, node := range nodes.Items {
				if !nodeReady(node) {
					return fmt.Errorf("node %s has not reported Ready yet", node.Name)
				}
			}
			since = time.Now().Truncate(time.Second)
		}
		for _, node := range nodes.Items {
			i := slices.IndexFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
			if i < 0 || !node.Status.Conditions[i].LastHeartbeatTime.After(since.Add(reach)) {
				return fmt.Errorf("node %s has not reported %s into the window", node.Name, reach)
			}
		}
		return nil
	})
	return since
}

// TestWhatIfOverTheAPIRefusesAWindowIntoThinnedHistory: once herd's
// retention has thinned the heartbeats, a what-if whose window starts
// before the thinning is refused with 400 naming spec.since and saying
// how to ask instead — it would otherwise replay a fleet that lost its
// reports and find differences herd never had.
func TestWhatIfOverTheAPIRefusesAWindowIntoThinnedHistory(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: append([]string{"--demo", "1"}, retentionArgs...)})
	eventually(t, 90*time.Second, func() error {
		if n := metricValue(t, srv.URL, "herd_log_compacted_events_total"); n == 0 {
			return fmt.Errorf("the retention has thinned nothing yet")
		}
		return nil
	})
	code, body := postWhatIf(t, srv.URL, map[string]any{"spec": map[string]any{"since": "1h"}})
	refusedNaming(t, "a window into thinned history", code, body, []string{"spec.since"},
		"thinned the heartbeats", "--heartbeat-retention")
}

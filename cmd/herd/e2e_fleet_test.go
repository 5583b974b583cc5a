package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The fleet the process tests register: Kubernetes Node JSON as a Pico
// posts it, and herd agents that register and heartbeat with metrics.

// nodeJSON reads a Node fixture from testdata and names it. It stays a
// generic map so that the body is sent exactly as the fixture has it.
func nodeJSON(t testing.TB, fixture, name string, mutate ...func(map[string]any)) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	var n map[string]any
	if err := json.Unmarshal(data, &n); err != nil {
		t.Fatalf("fixture %s: %v", fixture, err)
	}
	n["metadata"].(map[string]any)["name"] = name
	for _, m := range mutate {
		m(n)
	}
	return n
}

// withReady replaces a Pico fixture's conditions with Ready=status.
func withReady(status, reason string) func(map[string]any) {
	return func(n map[string]any) {
		n["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": status, "reason": reason}}
	}
}

// withConditions appends conditions to a Pico fixture's.
func withConditions(conds ...map[string]string) func(map[string]any) {
	return func(n map[string]any) {
		st := n["status"].(map[string]any)
		list, _ := st["conditions"].([]any)
		for _, c := range conds {
			list = append(list, c)
		}
		st["conditions"] = list
	}
}

// postNode registers a node the Kubernetes way (POST /api/v1/nodes).
func postNode(t *testing.T, base string, body map[string]any) corev1.Node {
	t.Helper()
	var n corev1.Node
	mustCall(t, http.StatusCreated, http.MethodPost, base+"/api/v1/nodes", body, &n)
	return n
}

// registerAgent registers a herd agent (PUT .../registration).
func registerAgent(t *testing.T, base, name string) corev1.Node {
	t.Helper()
	var n corev1.Node
	mustCall(t, http.StatusOK, http.MethodPut, agentPath(base, name)+"/registration", nodeJSON(t, "agent-node.json", name), &n)
	return n
}

// agentMetrics is an agent heartbeat's metrics as they go on the wire:
// every field is required, so every one is spelled out here.
type agentMetrics struct {
	CPUCount             int     `json:"cpuCount"`
	Load1                float64 `json:"load1"`
	Load5                float64 `json:"load5"`
	Load15               float64 `json:"load15"`
	MemoryTotalBytes     int64   `json:"memoryTotalBytes"`
	MemoryAvailableBytes int64   `json:"memoryAvailableBytes"`
	DiskTotalBytes       int64   `json:"diskTotalBytes"`
	DiskAvailableBytes   int64   `json:"diskAvailableBytes"`
	PIDsMax              int64   `json:"pidsMax"`
	PIDsCurrent          int64   `json:"pidsCurrent"`
	ActiveJobs           int     `json:"activeJobs"`
}

const gib = int64(1) << 30

// healthyMetrics is a comfortable 4-CPU host: Ready, no pressure.
func healthyMetrics() agentMetrics {
	return agentMetrics{
		CPUCount: 4, Load1: 0.5, Load5: 0.4, Load15: 0.3,
		MemoryTotalBytes: 8 * gib, MemoryAvailableBytes: 4 * gib,
		DiskTotalBytes: 100 * gib, DiskAvailableBytes: 60 * gib,
		PIDsMax: 32768, PIDsCurrent: 300, ActiveJobs: 1,
	}
}

func heartbeatBody(m agentMetrics) map[string]any { return map[string]any{"metrics": m} }

// heartbeat posts an agent heartbeat and returns the node herd answers.
func heartbeat(t *testing.T, base, name string, m agentMetrics) corev1.Node {
	t.Helper()
	var n corev1.Node
	mustCall(t, http.StatusOK, http.MethodPost, agentPath(base, name)+"/heartbeat", heartbeatBody(m), &n)
	return n
}

func agentPath(base, name string) string { return base + "/apis/herd.dev/v1/nodes/" + name }

// resourceVersion is a node's resourceVersion as the log position it is.
func resourceVersion(t *testing.T, n corev1.Node) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(n.ResourceVersion, 10, 64)
	if err != nil || rv <= 0 {
		t.Fatalf("node %s: resourceVersion %q is not a log position", n.Name, n.ResourceVersion)
	}
	return rv
}

// condition returns n's condition of type ct.
func condition(n corev1.Node, ct corev1.NodeConditionType) (corev1.NodeCondition, bool) {
	for _, c := range n.Status.Conditions {
		if c.Type == ct {
			return c, true
		}
	}
	return corev1.NodeCondition{}, false
}

// auditEvent is one record of herd's audit log, as the API serves it.
type auditEvent struct {
	Position int64  `json:"position"`
	Stream   string `json:"stream"`
	Version  int64  `json:"version"`
	Type     string `json:"type"`
	// RecordedAt and the metadata tell one write's events apart from the
	// next write's.
	RecordedAt    string `json:"recordedAt"`
	Actor         string `json:"actor"`
	CausationID   string `json:"causationId"`
	CorrelationID string `json:"correlationId"`
}

type auditEventList struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Items []auditEvent `json:"items"`
}

// readLog reads the whole audit log, page by page, in position order.
func readLog(t *testing.T, base string) []auditEvent {
	t.Helper()
	var all []auditEvent
	after := "0"
	for {
		var page auditEventList
		mustCall(t, http.StatusOK, http.MethodGet, base+"/apis/herd.dev/v1/auditevents?limit=1000&after="+after, nil, &page)
		all = append(all, page.Items...)
		if page.Metadata.Continue == "" || len(page.Items) == 0 {
			return all
		}
		after = page.Metadata.Continue
	}
}

// listNodesJSON returns the items of GET /api/v1/nodes as generic JSON, for
// comparisons that must not depend on Go types.
func listNodesJSON(t *testing.T, base string) []any {
	t.Helper()
	var list struct {
		Items []any `json:"items"`
	}
	mustCall(t, http.StatusOK, http.MethodGet, base+"/api/v1/nodes", nil, &list)
	return list.Items
}

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/httpapi"
)

// TestTheFleetAsItWas: herd serve with a one-second watch history (a
// watch from before it is expired, as after etcd's compaction) still
// lists the fleet as it was at any moment the log holds: herd node list,
// node get and pod list --at a time, a duration ago or a
// resourceVersion; herd fleet diff and node diff say what changed since;
// and the machine's kubectl reads the past through an exact list. herd
// snapshots every event here; with the snapshots dropped while it
// serves, the past reads the same.
func TestTheFleetAsItWas(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--watch-history", "1s", "--snapshot-every", "1"}})
	server := "--server=" + srv.URL
	registerAgent(t, srv.URL, "tt-01")
	registerAgent(t, srv.URL, "tt-02")
	// The moment between the two states: the newest event's, as herd
	// recorded it.
	var last httpapi.AuditEventList
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?tail=1", nil, &last)
	if len(last.Items) != 1 {
		t.Fatalf("the audit log's newest event: %+v", last)
	}
	before, when := last.Items[0].Position, last.Items[0].RecordedAt.Format(time.RFC3339Nano)
	mustHerd(t, "node", "cordon", "tt-01", server)
	mustCall(t, http.StatusOK, http.MethodDelete, srv.URL+"/api/v1/nodes/tt-02", nil, nil)
	// Until that moment is older than the watch history: a watch from
	// there is expired, as after etcd's compaction.
	c := &http.Client{Timeout: 10 * time.Second}
	eventually(t, 30*time.Second, func() error {
		resp, err := get(t.Context(), c, fmt.Sprintf("%s/api/v1/nodes?watch=true&timeoutSeconds=1&resourceVersion=%d", srv.URL, before))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var f watchFrame
		_ = json.NewDecoder(resp.Body).Decode(&f)
		if f.Type != "ERROR" || !strings.Contains(string(f.Object), `"code":410`) {
			return fmt.Errorf("a watch from %d still begins with %s", before, f.Type)
		}
		return nil
	})

	// Now: tt-01 cordoned, tt-02 gone.
	if out := mustHerd(t, "node", "list", server).Stdout; !strings.Contains(out, "SchedulingDisabled") || strings.Contains(out, "tt-02") {
		t.Errorf("herd node list now:\n%s", out)
	}
	for _, at := range []string{when, strconv.FormatInt(before, 10)} {
		out := mustHerd(t, "node", "list", server, "--at", at).Stdout
		if strings.Contains(out, "SchedulingDisabled") || !strings.Contains(out, "tt-01") || !strings.Contains(out, "tt-02") {
			t.Errorf("herd node list --at %s: want both nodes, neither cordoned:\n%s", at, out)
		}
	}
	var n corev1.Node
	if err := json.Unmarshal([]byte(mustHerd(t, "node", "get", "tt-02", server, "--at", when, "-o", "json").Stdout), &n); err != nil || n.Name != "tt-02" {
		t.Errorf("herd node get tt-02 --at %s: %+v, %v", when, n, err)
	}
	if res := herd(t, nil, "node", "get", "tt-02", server, "--at", "1ms"); res.Code == 0 || !strings.Contains(res.Stderr, `node "tt-02" did not exist then`) {
		t.Errorf("herd node get of a deleted node now: exit %d, %s", res.Code, res.Stderr)
	}
	if res := herd(t, nil, "node", "list", server, "--at", "last tuesday"); res.Code == 0 || !strings.Contains(res.Stderr, "want an RFC 3339 time") {
		t.Errorf("herd node list --at nonsense: exit %d, %s", res.Code, res.Stderr)
	}
	if out := mustHerd(t, "pod", "list", "-A", server, "--at", when).Stdout; out == "" {
		t.Error("herd pod list --at printed nothing")
	}
	past := mustHerd(t, "node", "list", server, "--at", when, "-o", "json").Stdout
	if out := mustHerd(t, "snapshots", "drop", "--data-dir", srv.DataDir).Stdout; !strings.HasPrefix(out, "dropped ") || strings.HasPrefix(out, "dropped 0 ") {
		t.Errorf("herd snapshots drop said %q, want some dropped", out)
	}
	if again := mustHerd(t, "node", "list", server, "--at", when, "-o", "json").Stdout; again != past {
		t.Errorf("herd node list --at %s with snapshots:\n%s\nand without:\n%s", when, past, again)
	}

	// What changed since, and one node's manifest then and now.
	diff := mustHerd(t, "fleet", "diff", server, "--from", when).Stdout
	for _, want := range []string{"node tt-01 cordoned", "node tt-02 left (was Ready "} {
		if !strings.Contains(diff, want) {
			t.Errorf("herd fleet diff --from %s lacks %q:\n%s", when, want, diff)
		}
	}
	if d := mustHerd(t, "node", "diff", "tt-01", server, "--from", when).Stdout; !strings.Contains(d, "+  unschedulable: true") || !strings.Contains(d, "--- tt-01 at "+when) {
		t.Errorf("herd node diff tt-01 --from %s:\n%s", when, d)
	}
	if why := mustHerd(t, "node", "why", "tt-01", server).Stdout; !strings.Contains(why, "cordoned since ") || !strings.Contains(why, "made so by NodeCordoned") {
		t.Errorf("herd node why tt-01:\n%s", why)
	}
	// Before the cordon, nothing was wrong with it; tt-02 did not exist
	// before the log began.
	if why := mustHerd(t, "node", "why", "tt-01", server, "--at", when).Stdout; strings.Contains(why, "cordoned") {
		t.Errorf("herd node why tt-01 --at %s:\n%s", when, why)
	}
	if res := herd(t, nil, "node", "why", "tt-02", server, "--at", "2000-01-01T00:00:00Z"); res.Code == 0 || !strings.Contains(res.Stderr, "did not exist at 2000-01-01T00:00:00Z") {
		t.Errorf("herd node why tt-02 --at 2000: exit %d, %s", res.Code, res.Stderr)
	}
	if res := herd(t, nil, "fleet", "diff", server); res.Code == 0 || !strings.Contains(res.Stderr, `"from" not set`) {
		t.Errorf("herd fleet diff without --from: exit %d, %s", res.Code, res.Stderr)
	}

	if _, err := exec.LookPath("kubectl"); err == nil {
		kc := newKubectl(t, srv.URL)
		raw := kc.must(t, "get", "--raw", fmt.Sprintf("/api/v1/nodes?resourceVersion=%d&resourceVersionMatch=Exact", before))
		var past corev1.NodeList
		if err := json.Unmarshal([]byte(raw), &past); err != nil || len(past.Items) != 2 || past.Items[0].Spec.Unschedulable {
			t.Errorf("kubectl get --raw of the past: %v\n%s", err, raw)
		}
	}
}

package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A node holds no time of its own for a condition heard with it (see
// domain.Node.ConditionsHeard): what a client reads, after its write and
// with a GET, is every condition's lastHeartbeatTime, the node's last
// report.
func TestANodesConditionsAnswerTheirLastHeartbeatTime(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})
	for range 2 {
		api.clock.Step(30 * time.Second)
		now := api.clock.Now()
		patched := mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: strategicPatch, body: readyPatch})
		got := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/pico-01"})
		for what, body := range map[string][]byte{"the PATCH's answer": patched.body, "a GET": got.body} {
			var n corev1.Node
			if err := json.Unmarshal(body, &n); err != nil {
				t.Fatal(err)
			}
			if len(n.Status.Conditions) == 0 {
				t.Fatalf("%s: no conditions: %s", what, body)
			}
			for _, c := range n.Status.Conditions {
				if !c.LastHeartbeatTime.Time.Equal(now.Truncate(time.Second)) {
					t.Errorf("%s: %s's lastHeartbeatTime %v, want the report's %v", what, c.Type, c.LastHeartbeatTime, now)
				}
			}
		}
	}
}

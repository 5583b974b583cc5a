package httpapi

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// conditionsPatch is a status report of n conditions Flag0000..., each
// with status and a message of msg bytes.
func conditionsPatch(t *testing.T, n int, status string, msg int) string {
	t.Helper()
	conds := make([]map[string]string, n)
	for i := range conds {
		conds[i] = map[string]string{"type": fmt.Sprintf("example.com/Flag%04d", i), "status": status}
		if msg > 0 {
			conds[i]["message"] = strings.Repeat("m", msg)
		}
	}
	body, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestAnOversizedStatusReportIsRefused: a device that reports more
// condition types than a node has, or conditions longer than Kubernetes
// allows, through the unauthenticated device listener, is refused with 422
// naming the field, and nothing is appended; a report within the bounds
// is taken.
func TestAnOversizedStatusReportIsRefused(t *testing.T) {
	api := newTestAPI(t, nil)
	dev := deviceListener(t, api, DeviceConfig{
		Allow:          []string{"pico-*"},
		SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")},
	})
	pico := from(t, "127.0.0.3")
	mustSend(t, pico, dev, 201, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")})
	status := "/api/v1/nodes/pico-01/status"
	for _, tc := range []struct {
		name  string
		body  string
		field string
	}{
		{"too many condition types", conditionsPatch(t, domain.MaxReportedConditions+1, "True", 0), "status.conditions"},
		{"thousands of condition types", conditionsPatch(t, 4000, "False", 0), "status.conditions"},
		{"a message too long", conditionsPatch(t, 1, "True", domain.MaxConditionMessageLength+1), "status.conditions[0].message"},
		{"long messages together", conditionsPatch(t, 9, "True", domain.MaxConditionMessageLength), "status.conditions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, pico, dev, req{method: "PATCH", path: status, contentType: strategicPatch, body: tc.body})
			if a.code != 422 {
				t.Fatalf("%d %.300s, want 422", a.code, a.body)
			}
			var st metav1.Status
			if err := json.Unmarshal(a.body, &st); err != nil || st.Details == nil {
				t.Fatalf("the answer is not a Status with details: %.300s", a.body)
			}
			var fields []string
			for _, c := range st.Details.Causes {
				fields = append(fields, c.Field)
			}
			if len(fields) != 1 || fields[0] != tc.field {
				t.Errorf("the refusal names %q, want %q", fields, tc.field)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused report moved the log from %d to %d", before, after)
			}
		})
	}
	// As many condition types as a report may carry are taken, and
	// flipped.
	mustSend(t, pico, dev, 200, req{method: "PATCH", path: status, contentType: strategicPatch,
		body: conditionsPatch(t, domain.MaxReportedConditions, "True", 100)})
	mustSend(t, pico, dev, 200, req{method: "PATCH", path: status, contentType: strategicPatch,
		body: conditionsPatch(t, domain.MaxReportedConditions, "False", 100)})
}

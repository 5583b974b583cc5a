package httpapi

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestNodeConditionsEndWithReady: a node's conditions come in a kubelet's
// order, Ready last, so that scripts reading .status.conditions[-1] (as
// `kubectl get nodes -o custom-columns=READY:.status.conditions[-1].status`
// does) read readiness from herd as from a kubelet. herd's agent derives
// Ready first; the API must not show it there.
func TestNodeConditionsEndWithReady(t *testing.T) {
	_, base := newMetricsAPI(t)
	var n corev1.Node
	if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/api/v1/nodes/web-01", token: "viewer-token"}).body, &n); err != nil {
		t.Fatal(err)
	}
	var got []corev1.NodeConditionType
	for _, c := range n.Status.Conditions {
		got = append(got, c.Type)
	}
	if len(got) < 4 || got[len(got)-1] != corev1.NodeReady {
		t.Fatalf("conditions %v, want Ready last", got)
	}
	want := []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("conditions %v, want %v first as a kubelet reports them", got, want)
			break
		}
	}
}

package httpapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"herd/projections"
)

// TestKubeEventType: a Kubernetes Event has the type the timeline gave
// its entry, whatever the entry's kind.
func TestKubeEventType(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    projections.TimelineEntry
		want string
	}{
		{"pressure True", projections.TimelineEntry{Kind: "ConditionChanged", Type: projections.TimelineWarning}, corev1.EventTypeWarning},
		{"pressure eased", projections.TimelineEntry{Kind: "ConditionChanged", Type: projections.TimelineNormal}, corev1.EventTypeNormal},
		{"operator taint", projections.TimelineEntry{Kind: "Tainted", Type: projections.TimelineNormal}, corev1.EventTypeNormal},
		{"rebooted", projections.TimelineEntry{Kind: "Restarted", Type: projections.TimelineWarning}, corev1.EventTypeWarning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := toKubeEvent(tc.e).Type; got != tc.want {
				t.Errorf("type %s, want %s", got, tc.want)
			}
		})
	}
}

package conversions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// TestRegistrationFromAPIKeepsLabels: a client's labels reach the domain as
// sent, herd.dev/ ones included, so that none vanishes without a word; the
// kind label names the kind.
func TestRegistrationFromAPIKeepsLabels(t *testing.T) {
	tests := []struct {
		name     string
		labels   map[string]string
		wantKind domain.NodeKind
	}{
		{name: "no kind label", labels: map[string]string{"herd.dev/demo": "true"}, wantKind: domain.KindLinux},
		{name: "kind label", labels: map[string]string{LabelKind: "illumos", "herd.dev/demo": "true"}, wantKind: domain.KindIllumos},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "zone-01", Labels: tc.labels}}
			reg := RegistrationFromAPI(in, domain.KindLinux)
			if reg.Kind != tc.wantKind {
				t.Errorf("kind = %q, want %q", reg.Kind, tc.wantKind)
			}
			if diff := cmp.Diff(tc.labels, reg.Labels); diff != "" {
				t.Errorf("labels (-sent +read):\n%s", diff)
			}
		})
	}
}

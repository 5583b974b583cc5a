package deployment

import (
	"testing"

	"herd/domain"
)

// TestTheTemplatesRevisionIsFoundWhateverItsHash: a ReplicaSet's
// template is the Deployment's when they differ only in the ReplicaSet's
// pod-template-hash label, or in labels said as nil rather than none;
// another image, label or grace period is another revision.
func TestTheTemplatesRevisionIsFoundWhateverItsHash(t *testing.T) {
	grace := int64(30)
	base := func() domain.PodTemplate {
		return domain.PodTemplate{Labels: map[string]string{"app": "web"},
			Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: "nginx:1"}}}}
	}
	withHash := base()
	withHash.Labels = map[string]string{"app": "web", domain.PodTemplateHashLabel: "5d4f8"}
	noLabels, emptyLabels := base(), base()
	noLabels.Labels, emptyLabels.Labels = nil, map[string]string{}
	otherImage := base()
	otherImage.Spec.Containers = []domain.Container{{Name: "web", Image: "nginx:2"}}
	otherLabel := base()
	otherLabel.Labels = map[string]string{"app": "web", "tier": "front"}
	otherGrace := base()
	otherGrace.TerminationGracePeriodSeconds = &grace
	for _, tc := range []struct {
		name string
		a, b domain.PodTemplate
		want bool
	}{
		{"the same", base(), base(), true},
		{"the ReplicaSet's hash label", base(), withHash, true},
		{"nil labels and none", noLabels, emptyLabels, true},
		{"another image", base(), otherImage, false},
		{"another label", withHash, otherLabel, false},
		{"a grace period set", base(), otherGrace, false},
	} {
		if got := templateEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: templateEqual = %v, want %v", tc.name, got, tc.want)
		}
	}
}

package conversions

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// zonePod is a pod as herd serves it to a node's agent: bound, with a
// zone, an address and a deletion under way.
func zonePod() domain.Pod {
	return domain.Pod{
		Namespace: "default", Name: "web", UID: "uid-web",
		Annotations: map[string]string{"team": "web"},
		CreatedAt:   t0, Version: 1, ResourceVersion: 7,
		Spec: domain.PodSpec{NodeName: "zone-01", TerminationGracePeriodSeconds: 30,
			Containers: []domain.Container{{Name: "app", Image: "busybox", Limits: domain.ResourceList{"cpu": 1500, "memory": 512 << 20}}},
			Zone:       &domain.ZoneSpec{Brand: "lx", Image: "ubuntu.tar.xz", Volumes: []domain.ZoneVolume{{Name: "data", MountPath: "/data", Persistent: true}}}},
		Network: &domain.PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 16, Gateway: "10.88.0.1"},
		Deletion: &domain.PodDeletion{RequestedAt: t0, GracePeriodSeconds: 30, Deadline: t0.Add(30 * time.Second),
			ShutdownRequestedAt: t0, StoppedAt: t0.Add(5 * time.Second)},
	}
}

func TestPodFromAPIReadsBackPodToAPI(t *testing.T) {
	want := zonePod()
	got, err := PodFromAPI(PodToAPI(want))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-served +read back):\n%s", diff)
	}
}

func TestPodFromAPINamesWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name string
		edit func(*corev1.Pod)
		want string
	}{
		{"no resourceVersion", func(p *corev1.Pod) { p.ResourceVersion = "" }, `resourceVersion ""`},
		{"a prefix length that is no number", func(p *corev1.Pod) { p.Annotations[AnnotationNetworkPrefixLength] = "sixteen" }, "herd.dev/pod-network-prefix-length"},
		{"a step time that is no time", func(p *corev1.Pod) { p.Annotations[AnnotationStoppedAt] = "yesterday" }, "herd.dev/stopped-at"},
		{"bad zone volumes", func(p *corev1.Pod) { p.Annotations[AnnotationZoneVolumes] = "[{" }, "herd.dev/zone-volumes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kp := PodToAPI(zonePod())
			tt.edit(&kp)
			if _, err := PodFromAPI(kp); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v, want an error naming %s", err, tt.want)
			}
		})
	}
}

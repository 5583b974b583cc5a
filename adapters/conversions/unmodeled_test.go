package conversions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestPodSpecKeepsWhatHerdDoesNotActOn: a pod spec's fields herd does
// not act on (volumes, init containers, a security context, the DNS
// policy; a container's environment, ports, probes, mounts, pull policy)
// read back as the client wrote them, beside herd's own and its defaults
// (the scheduler, the grace period), so that kubectl diff and a GitOps
// tool see no drift; the same spec is always the same bytes, and a spec
// of herd's fields alone keeps nothing more.
func TestPodSpecKeepsWhatHerdDoesNotActOn(t *testing.T) {
	grace, nonRoot := int64(10), true
	in := corev1.PodSpec{
		NodeSelector:    map[string]string{"zone": "a"},
		RestartPolicy:   corev1.RestartPolicyOnFailure,
		DNSPolicy:       corev1.DNSClusterFirst,
		Volumes:         []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		InitContainers:  []corev1.Container{{Name: "init", Image: "busybox", Command: []string{"true"}}},
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &nonRoot},
		Containers: []corev1.Container{{
			Name: "web", Image: "nginx:1", Args: []string{"-g", "daemon off;"},
			Env:             []corev1.EnvVar{{Name: "MODE", Value: "fast"}, {Name: "LEVEL", Value: "2"}},
			Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			ReadinessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}},
			VolumeMounts:    []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}},
			ImagePullPolicy: corev1.PullIfNotPresent,
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
				Claims:   []corev1.ResourceClaim{{Name: "gpu"}},
			},
		}},
	}
	s := PodSpecFromAPI(in)
	s.TerminationGracePeriodSeconds = grace
	if again := PodSpecFromAPI(in); string(again.Unmodeled) != string(s.Unmodeled) || string(again.Containers[0].Unmodeled) != string(s.Containers[0].Unmodeled) {
		t.Errorf("the same spec read twice kept %s and %s", s.Unmodeled, again.Unmodeled)
	}
	want := in.DeepCopy()
	want.TerminationGracePeriodSeconds, want.SchedulerName = &grace, corev1.DefaultSchedulerName
	want.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}
	got := PodSpecToAPI(s)
	if diff := cmp.Diff(*want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("read back (-written +got):\n%s", diff)
	}

	plain := PodSpecFromAPI(corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}})
	if plain.Unmodeled != nil || plain.Containers[0].Unmodeled != nil {
		t.Errorf("a spec of herd's fields alone kept %s and %s", plain.Unmodeled, plain.Containers[0].Unmodeled)
	}
}

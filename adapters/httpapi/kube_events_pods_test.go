package httpapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// TestStatusEvents: what a new status says happened, as the kubelet
// reports it: containers that came up or wait, a pod that failed, and
// nothing for a status that changed nothing an operator looks at.
func TestStatusEvents(t *testing.T) {
	pod := func(phase domain.PodPhase, states ...domain.ContainerState) domain.Pod {
		p := domain.Pod{Namespace: "demo", Name: "web", Spec: domain.PodSpec{NodeName: "web-01", Containers: []domain.Container{{Name: "c", Image: "nginx"}}}}
		p.Status.Phase = phase
		for _, st := range states {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, domain.ContainerStatus{Name: "c", Image: "nginx", State: st})
		}
		return p
	}
	running := domain.ContainerState{Running: &domain.ContainerRunning{StartedAt: t0}}
	waiting := func(reason string) domain.ContainerState {
		return domain.ContainerState{Waiting: &domain.ContainerWaiting{Reason: reason, Message: "it broke"}}
	}
	failed := pod(domain.PodFailed)
	failed.Status.Reason, failed.Status.Message = "StartFailed", "zoneadm boot: exit 1"
	zone := pod(domain.PodRunning)
	zone.Spec.Containers = nil
	zonePending := zone
	zonePending.Status.Phase = domain.PodPending
	for _, tc := range []struct {
		name      string
		prev, cur domain.Pod
		want      []string
	}{
		{"a container starts", pod(domain.PodPending), pod(domain.PodRunning, running), []string{"Normal Started: Started container c"}},
		{"still running", pod(domain.PodRunning, running), pod(domain.PodRunning, running), nil},
		{"crash loop", pod(domain.PodRunning, running), pod(domain.PodRunning, waiting("CrashLoopBackOff")), []string{"Warning BackOff: Back-off restarting failed container c"}},
		{"image pull back-off", pod(domain.PodPending), pod(domain.PodPending, waiting("ImagePullBackOff")), []string{`Normal BackOff: Back-off pulling image "nginx"`}},
		{"image pull error", pod(domain.PodPending), pod(domain.PodPending, waiting("ErrImagePull")), []string{"Warning Failed: Error: ErrImagePull: it broke"}},
		{"being created", pod(domain.PodPending), pod(domain.PodPending, waiting("ContainerCreating")), nil},
		{"the pod fails", pod(domain.PodPending), failed, []string{"Warning StartFailed: zoneadm boot: exit 1"}},
		{"a zone starts", zonePending, zone, []string{"Normal Started: Started pod demo/web on node web-01"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range podEvents(tc.prev, tc.cur, domain.PodStatusUpdated{Status: tc.cur.Status}) {
				got = append(got, e.typ+" "+e.reason+": "+e.message)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

// TestAPodMarkedNotReadyIsAWarning: herd marking a pod not ready because
// its node is not is told as Kubernetes' node controller tells it.
func TestAPodMarkedNotReadyIsAWarning(t *testing.T) {
	p := domain.Pod{Namespace: "demo", Name: "web", Spec: domain.PodSpec{NodeName: "web-01"}}
	got := podEvents(p, p, domain.PodMarkedNotReady{Node: "web-01", At: t0})
	want := []podEvent{{reason: "NodeNotReady", typ: "Warning", component: "node-controller", message: "Node is not ready"}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(podEvent{})); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

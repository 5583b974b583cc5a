package domain

import (
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// samplePodEvents is one event of every pod event type, with every map,
// slice and pointer filled in.
func samplePodEvents() []Event {
	spec := podSpec()
	spec.Tolerations = append(spec.Tolerations, Toleration{Key: "maintenance", Operator: TolerationOpEqual, Value: "true", Effect: EffectNoExecute, TolerationSeconds: ptr(int64(60))})
	status := PodStatus{
		Phase: PodRunning, PodIP: "10.88.0.2", HostIP: "192.0.2.1", StartTime: at(3),
		Conditions: []PodCondition{{Type: PodConditionReady, Status: ConditionTrue}},
		ContainerStatuses: []ContainerStatus{{
			Name: "web", Image: "nginx", Ready: true, RestartCount: 4,
			State:     ContainerState{Waiting: &ContainerWaiting{Reason: "CrashLoopBackOff", Message: "back-off"}},
			LastState: ContainerState{Terminated: &ContainerTerminated{ExitCode: 1, Reason: "Error", StartedAt: at(1), FinishedAt: at(2)}},
		}},
	}
	return []Event{
		PodCreated{Namespace: "default", Name: "web", UID: "uid-1", Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{"note": "x"}, Finalizers: []string{"herd.dev/keep"},
			Owners: []OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs-1", Controller: true}}, Spec: spec, At: at(1)},
		PodScheduled{NodeName: "n1", At: at(2)},
		PodUnschedulable{Message: "0/1 nodes are available: 1 Insufficient memory.", At: at(2)},
		PodStatusUpdated{Status: status, At: at(3)},
		PodMarkedNotReady{Node: "n1", At: at(4)},
		PodMetadataChanged{Labels: map[string]string{"app": "web2"}, Annotations: map[string]string{"a": "b"}, Finalizers: []string{"f"}, At: at(4)},
		PodOwnersChanged{Owners: []OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-2", UID: "rs-2", Controller: true}}, At: at(4)},
		PodDisruptionTargeted{Reason: ReasonDeletionByTaintManager, Message: "Taint manager: deleting due to NoExecute taint", At: at(5)},
		PodDeletionRequested{GracePeriodSeconds: 30, Deadline: at(36), At: at(6)},
		PodShutdownRequested{At: at(7)},
		PodHalted{At: at(8)},
		PodStopped{At: at(9)},
		PodDeprovisioned{At: at(10)},
		PodFinalized{Reason: "Terminated", At: at(11)},
		PodObserved{Namespace: "kube-system", Name: "coredns", UID: "uid-2", Labels: map[string]string{"k8s-app": "dns"},
			Annotations: map[string]string{"a": "b"}, Owners: []OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "dns", UID: "ds-1", Controller: true}},
			CreatedAt: at(0), Spec: spec, Status: status, At: at(12)},
	}
}

// podSpec is a small valid spec with requests, limits and a zone.
func podSpec() PodSpec {
	return PodSpec{
		NodeSelector: map[string]string{"disk": "ssd"},
		Containers: []Container{{
			Name: "web", Image: "nginx", Command: []string{"nginx"}, Args: []string{"-g", "daemon off;"},
			Requests: ResourceList{"cpu": 250, "memory": 64 << 20},
			Limits:   ResourceList{"cpu": 500, "memory": 128 << 20},
		}},
		TerminationGracePeriodSeconds: 30,
		Zone:                          &ZoneSpec{Brand: "lx", Image: "ubuntu-24.04", Volumes: []ZoneVolume{{Name: "data", MountPath: "/data", Persistent: true, SizeBytes: 1 << 30}}},
	}
}

// createPod is a valid CreatePod for default/name.
func createPod(name string) CreatePod {
	spec := podSpec()
	spec.Zone = nil
	return CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Labels: map[string]string{"app": name}, Spec: spec}
}

// podAfter folds the events that cmds cause on an unseen pod, failing the
// test on any error.
func podAfter(t *testing.T, now time.Time, cmds ...PodCommand) Pod {
	t.Helper()
	var p Pod
	for _, c := range cmds {
		evs, err := DecidePod(p, c, now)
		if err != nil {
			t.Fatalf("%T: %v", c, err)
		}
		for _, e := range evs {
			p = EvolvePod(p, e)
		}
	}
	return p
}

// decidePod decides cmd on p and folds the result.
func decidePod(t *testing.T, p Pod, cmd PodCommand, now time.Time) (Pod, []Event, error) {
	t.Helper()
	evs, err := DecidePod(p, cmd, now)
	for _, e := range evs {
		p = EvolvePod(p, e)
	}
	return p, evs, err
}

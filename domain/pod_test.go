package domain

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCreatePodAppliesKubernetesDefaults(t *testing.T) {
	p := podAfter(t, at(1), createPod("web"))
	if p.Spec.TerminationGracePeriodSeconds != 30 {
		t.Errorf("grace %d, want 30", p.Spec.TerminationGracePeriodSeconds)
	}
	want := []Toleration{
		{Key: TaintNotReady, Operator: TolerationOpExists, Effect: EffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: TaintUnreachable, Operator: TolerationOpExists, Effect: EffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}
	if diff := cmp.Diff(want, p.Spec.Tolerations); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	if p.Status.Phase != PodPending || p.Spec.NodeName != "" || !p.CreatedAt.Equal(at(1)) {
		t.Errorf("phase %q node %q created %v", p.Status.Phase, p.Spec.NodeName, p.CreatedAt)
	}

	c := createPod("fast")
	c.TerminationGracePeriodSeconds = ptr(int64(0))
	if p := podAfter(t, at(1), c); p.Spec.TerminationGracePeriodSeconds != 0 {
		t.Errorf("explicit grace 0 became %d", p.Spec.TerminationGracePeriodSeconds)
	}
}

func TestDefaultTolerationsRespectThePodsOwn(t *testing.T) {
	tests := []struct {
		name string
		own  []Toleration
		want int // tolerations after defaults
	}{
		{"none", nil, 2},
		{"own not-ready NoExecute", []Toleration{{Key: TaintNotReady, Operator: TolerationOpExists, Effect: EffectNoExecute}}, 2},
		{"own not-ready any effect", []Toleration{{Key: TaintNotReady, Operator: TolerationOpExists}}, 2},
		{"own not-ready NoSchedule only", []Toleration{{Key: TaintNotReady, Operator: TolerationOpExists, Effect: EffectNoSchedule}}, 3},
		{"tolerate everything", []Toleration{{Operator: TolerationOpExists}}, 1},
		{"both own", []Toleration{{Key: TaintNotReady, Operator: TolerationOpExists}, {Key: TaintUnreachable, Operator: TolerationOpExists}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withDefaultTolerations(tt.own); len(got) != tt.want {
				t.Errorf("got %d tolerations %+v, want %d", len(got), got, tt.want)
			}
		})
	}
}

func TestCreatePodWithNodeNameIsBoundAtOnce(t *testing.T) {
	c := createPod("pinned")
	c.Spec.NodeName = "n1"
	evs, err := DecidePod(Pod{}, c, at(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1] != (PodScheduled{NodeName: "n1", At: at(1)}) {
		t.Fatalf("events %+v, want PodCreated then PodScheduled on n1", evs)
	}
}

func TestCreatePodRejectsBadInput(t *testing.T) {
	tests := []struct {
		name   string
		change func(*CreatePod)
		field  string
	}{
		{"no name", func(c *CreatePod) { c.Name = "" }, "metadata.name"},
		{"bad namespace", func(c *CreatePod) { c.Namespace = "Default" }, "metadata.namespace"},
		{"no containers", func(c *CreatePod) { c.Spec.Containers = nil }, "spec.containers"},
		{"duplicate container", func(c *CreatePod) { c.Spec.Containers = append(c.Spec.Containers, c.Spec.Containers[0]) }, "spec.containers[1].name"},
		{"request above limit", func(c *CreatePod) { c.Spec.Containers[0].Requests["cpu"] = 600 }, "spec.containers[0].resources.requests[cpu]"},
		{"negative grace", func(c *CreatePod) { c.TerminationGracePeriodSeconds = ptr(int64(-1)) }, "spec.terminationGracePeriodSeconds"},
		{"seconds without NoExecute", func(c *CreatePod) {
			c.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists, Effect: EffectNoSchedule, TolerationSeconds: ptr(int64(1))}}
		}, "spec.tolerations[0].effect"},
		{"Exists with a value", func(c *CreatePod) {
			c.Spec.Tolerations = []Toleration{{Key: "k", Operator: TolerationOpExists, Value: "v"}}
		}, "spec.tolerations[0].operator"},
		{"empty key with Equal", func(c *CreatePod) { c.Spec.Tolerations = []Toleration{{Value: "v"}} }, "spec.tolerations[0].operator"},
		{"bad effect", func(c *CreatePod) { c.Spec.Tolerations = []Toleration{{Key: "k", Effect: "Sometimes"}} }, "spec.tolerations[0].effect"},
		{"volume name not a dataset name", func(c *CreatePod) {
			c.Spec.Zone = &ZoneSpec{Volumes: []ZoneVolume{{Name: "data/../x", MountPath: "/data"}}}
		}, "spec.zone.volumes[0].name"},
		{"duplicate volume", func(c *CreatePod) {
			c.Spec.Zone = &ZoneSpec{Volumes: []ZoneVolume{{Name: "data", MountPath: "/a"}, {Name: "data", MountPath: "/b"}}}
		}, "spec.zone.volumes[1].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := createPod("web")
			c.Spec = c.Spec.clone()
			tt.change(&c)
			evs, err := DecidePod(Pod{}, c, at(1))
			if len(evs) != 0 || !errors.Is(err, ErrInvalid) {
				t.Fatalf("events %v, error %v; want none and ErrInvalid", evs, err)
			}
			var inv *InvalidError
			errors.As(err, &inv)
			found := false
			for _, f := range inv.Fields {
				found = found || f.Field == tt.field
			}
			if !found {
				t.Errorf("error %v does not name %s", err, tt.field)
			}
		})
	}
	p := podAfter(t, at(1), createPod("web"))
	if _, err := DecidePod(p, createPod("web"), at(2)); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("second create: %v, want ErrAlreadyExists", err)
	}
}

func TestTolerationMatching(t *testing.T) {
	taint := Taint{Key: "maintenance", Value: "true", Effect: EffectNoSchedule}
	tests := []struct {
		name string
		tol  Toleration
		want bool
	}{
		{"Equal same value", Toleration{Key: "maintenance", Operator: TolerationOpEqual, Value: "true", Effect: EffectNoSchedule}, true},
		{"default operator is Equal", Toleration{Key: "maintenance", Value: "true", Effect: EffectNoSchedule}, true},
		{"Equal other value", Toleration{Key: "maintenance", Value: "false", Effect: EffectNoSchedule}, false},
		{"Exists ignores value", Toleration{Key: "maintenance", Operator: TolerationOpExists, Effect: EffectNoSchedule}, true},
		{"empty effect matches all", Toleration{Key: "maintenance", Operator: TolerationOpExists}, true},
		{"other effect", Toleration{Key: "maintenance", Operator: TolerationOpExists, Effect: EffectNoExecute}, false},
		{"empty key Exists matches all", Toleration{Operator: TolerationOpExists}, true},
		{"empty key Exists with effect", Toleration{Operator: TolerationOpExists, Effect: EffectNoExecute}, false},
		{"other key", Toleration{Key: "other", Operator: TolerationOpExists}, false},
		{"unknown operator", Toleration{Key: "maintenance", Operator: "Lt", Value: "true"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tol.Tolerates(taint); got != tt.want {
				t.Errorf("Tolerates = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNoExecuteDeadline(t *testing.T) {
	noExec := Taint{Key: TaintUnreachable, Effect: EffectNoExecute, TimeAdded: at(100)}
	maint := Taint{Key: "maintenance", Value: "true", Effect: EffectNoExecute, TimeAdded: at(100)}
	tol := func(key string, secs *int64) Toleration {
		return Toleration{Key: key, Operator: TolerationOpExists, Effect: EffectNoExecute, TolerationSeconds: secs}
	}
	tests := []struct {
		name      string
		taints    []Taint
		tols      []Toleration
		boundAt   time.Time
		wantAt    time.Time
		wantEvict bool
	}{
		{"no taints", nil, nil, at(0), time.Time{}, false},
		{"NoSchedule only", []Taint{{Key: "x", Effect: EffectNoSchedule}}, nil, at(0), time.Time{}, false},
		{"untolerated: at once", []Taint{maint}, nil, at(0), time.Time{}, true},
		{"tolerated for ever", []Taint{maint}, []Toleration{tol("maintenance", nil)}, at(0), time.Time{}, false},
		{"tolerated 300 s from the taint", []Taint{noExec}, []Toleration{tol(TaintUnreachable, ptr(int64(300)))}, at(0), at(400), true},
		{"counted from binding when later", []Taint{noExec}, []Toleration{tol(TaintUnreachable, ptr(int64(300)))}, at(200), at(500), true},
		{"smallest of two", []Taint{noExec}, []Toleration{tol(TaintUnreachable, ptr(int64(300))), tol("", ptr(int64(60)))}, at(0), at(160), true},
		{"one tolerated, one not", []Taint{noExec, maint}, []Toleration{tol(TaintUnreachable, ptr(int64(300)))}, at(0), time.Time{}, true},
		{"negative means now", []Taint{noExec}, []Toleration{tol(TaintUnreachable, ptr(int64(-5)))}, at(0), at(100), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotAt, evict := NoExecuteDeadline(tt.taints, tt.tols, tt.boundAt)
			if evict != tt.wantEvict || !gotAt.Equal(tt.wantAt) {
				t.Errorf("got (%v, %v), want (%v, %v)", gotAt, evict, tt.wantAt, tt.wantEvict)
			}
		})
	}
}

func TestBindAndUnschedulable(t *testing.T) {
	p := podAfter(t, at(1), createPod("web"))
	p, evs, err := decidePod(t, p, MarkPodUnschedulable{Message: "0/1 nodes are available: 1 Insufficient cpu."}, at(2))
	if err != nil || len(evs) != 1 {
		t.Fatalf("unschedulable: %v %v", evs, err)
	}
	if _, evs, _ := decidePod(t, p, MarkPodUnschedulable{Message: "0/1 nodes are available: 1 Insufficient cpu."}, at(3)); len(evs) != 0 {
		t.Errorf("same message again appended %v", evs)
	}
	c, _ := p.Condition(PodConditionScheduled)
	if c.Status != ConditionFalse || c.Reason != ReasonUnschedulable {
		t.Errorf("condition %+v", c)
	}
	p, _, err = decidePod(t, p, BindPod{NodeName: "n1"}, at(4))
	if err != nil || p.Spec.NodeName != "n1" {
		t.Fatalf("bind: %v, node %q", err, p.Spec.NodeName)
	}
	if c, _ := p.Condition(PodConditionScheduled); c.Status != ConditionTrue || !c.LastTransitionTime.Equal(at(4)) {
		t.Errorf("after binding %+v", c)
	}
	if _, evs, err := decidePod(t, p, BindPod{NodeName: "n1"}, at(5)); err != nil || len(evs) != 0 {
		t.Errorf("rebinding to the same node: %v %v", evs, err)
	}
	if _, _, err := decidePod(t, p, BindPod{NodeName: "n2"}, at(5)); !errors.Is(err, ErrConflict) {
		t.Errorf("binding elsewhere: %v, want ErrConflict", err)
	}
	if _, evs, _ := decidePod(t, p, MarkPodUnschedulable{Message: "x"}, at(5)); len(evs) != 0 {
		t.Errorf("a bound pod was marked unschedulable: %v", evs)
	}
}

func TestDeletePod(t *testing.T) {
	pending := podAfter(t, at(1), createPod("web"))
	running := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"})

	t.Run("never scheduled goes at once", func(t *testing.T) {
		p, evs, err := decidePod(t, pending, DeletePod{}, at(2))
		if err != nil || !p.Finalized || len(evs) != 2 {
			t.Fatalf("events %v, finalized %v, err %v", evs, p.Finalized, err)
		}
	})
	t.Run("finalizers hold it", func(t *testing.T) {
		held, _, _ := decidePod(t, pending, SetPodMetadata{Finalizers: []string{"example.com/hold"}}, at(2))
		p, _, err := decidePod(t, held, DeletePod{}, at(3))
		if err != nil || p.Finalized || !p.Terminating() {
			t.Fatalf("finalized %v terminating %v err %v", p.Finalized, p.Terminating(), err)
		}
		if _, _, err := decidePod(t, p, FinalizePod{Reason: "Terminated"}, at(4)); !errors.Is(err, ErrConflict) {
			t.Errorf("finalize with finalizers: %v, want ErrConflict", err)
		}
	})
	t.Run("removing one finalizer keeps the rest", func(t *testing.T) {
		held, _, _ := decidePod(t, pending, SetPodMetadata{Labels: map[string]string{"app": "pi"}, Finalizers: []string{JobTrackingFinalizer, "example.com/hold"}}, at(2))
		p, _, _ := decidePod(t, held, DeletePod{}, at(3))
		p, evs, err := decidePod(t, p, RemovePodFinalizer{Finalizer: JobTrackingFinalizer}, at(4))
		if err != nil || len(evs) != 1 || !slices.Equal(p.Finalizers, []string{"example.com/hold"}) || p.Labels["app"] != "pi" || !p.Terminating() {
			t.Fatalf("events %v, finalizers %v, labels %v, terminating %v, err %v", evs, p.Finalizers, p.Labels, p.Terminating(), err)
		}
		if _, evs, err := decidePod(t, p, RemovePodFinalizer{Finalizer: JobTrackingFinalizer}, at(5)); err != nil || len(evs) != 0 {
			t.Errorf("removing it again: events %v, err %v", evs, err)
		}
		p, _, _ = decidePod(t, p, RemovePodFinalizer{Finalizer: "example.com/hold"}, at(6))
		if p, _, err := decidePod(t, p, FinalizePod{Reason: "Terminated"}, at(7)); err != nil || !p.Finalized {
			t.Errorf("finalize once none is left: finalized %v, err %v", p.Finalized, err)
		}
	})
	t.Run("scheduled gets its grace period", func(t *testing.T) {
		p, _, err := decidePod(t, running, DeletePod{}, at(10))
		if err != nil || p.Finalized || p.Deletion == nil || !p.Deletion.Deadline.Equal(at(40)) || p.Deletion.GracePeriodSeconds != 30 {
			t.Fatalf("deletion %+v err %v", p.Deletion, err)
		}
		if _, evs, _ := decidePod(t, p, DeletePod{}, at(11)); len(evs) != 0 {
			t.Errorf("second delete appended %v", evs)
		}
		if _, evs, _ := decidePod(t, p, DeletePod{GracePeriodSeconds: ptr(int64(60))}, at(11)); len(evs) != 0 {
			t.Errorf("a longer grace period lengthened the deadline: %v", evs)
		}
		shorter, evs, _ := decidePod(t, p, DeletePod{GracePeriodSeconds: ptr(int64(5))}, at(11))
		if len(evs) != 1 || !shorter.Deletion.Deadline.Equal(at(16)) || !shorter.Deletion.RequestedAt.Equal(at(10)) {
			t.Errorf("shorter: events %v deletion %+v", evs, shorter.Deletion)
		}
	})
	t.Run("finished goes at once", func(t *testing.T) {
		done, _, _ := decidePod(t, running, UpdatePodStatus{Status: PodStatus{Phase: PodSucceeded}}, at(2))
		p, _, err := decidePod(t, done, DeletePod{}, at(3))
		if err != nil || !p.Finalized {
			t.Fatalf("finalized %v err %v", p.Finalized, err)
		}
	})
	t.Run("negative grace", func(t *testing.T) {
		if _, evs, err := decidePod(t, running, DeletePod{GracePeriodSeconds: ptr(int64(-1))}, at(2)); !errors.Is(err, ErrInvalid) || len(evs) != 0 {
			t.Errorf("events %v err %v", evs, err)
		}
	})
}

func TestTerminationSteps(t *testing.T) {
	p := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"})
	if _, _, err := decidePod(t, p, RecordTermination{Step: StepShutdownRequested}, at(2)); !errors.Is(err, ErrConflict) {
		t.Errorf("shutdown before deletion: %v, want ErrConflict", err)
	}
	p, _, _ = decidePod(t, p, DeletePod{}, at(2))
	for _, step := range []TerminationStep{StepShutdownRequested, StepHalted, StepStopped, StepDeprovisioned} {
		var evs []Event
		var err error
		p, evs, err = decidePod(t, p, RecordTermination{Step: step}, at(3))
		if err != nil || len(evs) != 1 {
			t.Fatalf("step %d: %v %v", step, evs, err)
		}
		if _, again, _ := decidePod(t, p, RecordTermination{Step: step}, at(4)); len(again) != 0 {
			t.Errorf("step %d twice appended %v", step, again)
		}
	}
	p, _, err := decidePod(t, p, FinalizePod{Reason: "Terminated"}, at(5))
	if err != nil || !p.Finalized || p.Exists() {
		t.Fatalf("finalize: %v, finalized %v", err, p.Finalized)
	}
	if _, _, err := decidePod(t, p, DeletePod{}, at(6)); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete after finalize: %v, want ErrNotFound", err)
	}
	// A new pod of the same name starts afresh on the same stream.
	again, _, err := decidePod(t, p, createPod("web"), at(7))
	if err != nil || again.Finalized || again.Deletion != nil || again.Version != p.Version+1 {
		t.Fatalf("recreate: %+v %v", again, err)
	}
}

func TestUpdatePodStatus(t *testing.T) {
	p := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"})
	running := PodStatus{Phase: PodRunning, PodIP: "10.88.0.2", StartTime: at(2), Conditions: []PodCondition{{Type: PodConditionReady, Status: ConditionTrue, LastTransitionTime: time.Unix(0, 0)}}}
	p, evs, err := decidePod(t, p, UpdatePodStatus{Status: running}, at(3))
	if err != nil || len(evs) != 1 {
		t.Fatalf("%v %v", evs, err)
	}
	if c, _ := p.Condition(PodConditionReady); !c.LastTransitionTime.Equal(at(3)) {
		t.Errorf("Ready dated %v, want herd's clock %v", c.LastTransitionTime, at(3))
	}
	if _, ok := p.Condition(PodConditionScheduled); !ok {
		t.Errorf("a status report dropped PodScheduled")
	}
	if _, evs, _ := decidePod(t, p, UpdatePodStatus{Status: running}, at(4)); len(evs) != 0 {
		t.Errorf("the same status again appended %v", evs)
	}
	failed, _, _ := decidePod(t, p, UpdatePodStatus{Status: PodStatus{Phase: PodFailed, Reason: "Error"}}, at(5))
	if _, _, err := decidePod(t, failed, UpdatePodStatus{Status: PodStatus{Phase: PodRunning}}, at(6)); !errors.Is(err, ErrInvalid) {
		t.Errorf("leaving Failed: %v, want ErrInvalid", err)
	}
	if _, _, err := decidePod(t, p, UpdatePodStatus{Status: PodStatus{Phase: "Sleeping"}}, at(6)); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown phase: %v, want ErrInvalid", err)
	}
}

func TestObservedPods(t *testing.T) {
	obs := ObservePod{Namespace: "kube-system", Name: "coredns", UID: "u", CreatedAt: at(0),
		Spec:   PodSpec{NodeName: "k1", Containers: []Container{{Name: "coredns"}}},
		Status: PodStatus{Phase: PodRunning, Conditions: []PodCondition{{Type: PodConditionReady, Status: ConditionTrue}}}}
	p := podAfter(t, at(1), obs)
	if !p.Observed() || p.Spec.NodeName != "k1" {
		t.Fatalf("%+v", p)
	}
	if _, evs, err := decidePod(t, p, obs, at(2)); err != nil || len(evs) != 0 {
		t.Errorf("the same observation again: %v %v", evs, err)
	}
	for _, cmd := range []PodCommand{DeletePod{}, BindPod{NodeName: "k2"}, TargetPodDisruption{Reason: ReasonDeletionByTaintManager}, UpdatePodStatus{}} {
		if _, _, err := decidePod(t, p, cmd, at(3)); !errors.Is(err, ErrConflict) {
			t.Errorf("%T on an observed pod: %v, want ErrConflict", cmd, err)
		}
	}
	gone, _, _ := decidePod(t, p, ForgetObservedPod{}, at(4))
	if gone.Exists() {
		t.Errorf("forgotten pod still exists")
	}
	managed := podAfter(t, at(1), createPod("web"))
	if _, _, err := decidePod(t, managed, ObservePod{Namespace: "default", Name: "web", Spec: PodSpec{NodeName: "k1"}}, at(2)); !errors.Is(err, ErrConflict) {
		t.Errorf("observing over a managed pod: %v, want ErrConflict", err)
	}
}

func TestEvolvePodNeverMutatesItsInput(t *testing.T) {
	for _, e := range samplePodEvents() {
		t.Run(e.EventType(), func(t *testing.T) {
			p := podAfter(t, at(1), createPod("web"), BindPod{NodeName: "n1"}, DeletePod{})
			p.Status.ContainerStatuses = []ContainerStatus{{Name: "web", State: ContainerState{Running: &ContainerRunning{StartedAt: at(1)}}}}
			before := p.Clone()
			EvolvePod(p, e)
			if diff := cmp.Diff(before, p); diff != "" {
				t.Fatalf("input pod changed (-before +after):\n%s", diff)
			}
		})
	}
}

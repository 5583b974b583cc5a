package domain

import (
	"errors"
	"testing"
)

// TestNodeCommandWrappers covers the commands that wrap another: what
// callers used to check in closures of their own around the unit of work.
func TestNodeCommandWrappers(t *testing.T) {
	reg := RegisterNode{Registration: registration("web-01")}
	node, _ := run(t, Node{Name: "web-01"}, step{reg, t0})
	node.ResourceVersion = 42
	stopped, _ := run(t, node, step{DeregisterNode{}, at(1)})
	tests := []struct {
		name    string
		n       Node
		cmd     NodeCommand
		wantErr error
		events  int
	}{
		{"sequence", Node{Name: "web-01"}, NodeSequence{reg, RecordHeartbeat{Metrics: healthy()}}, nil, -1},
		{"sequence refused whole", Node{Name: "web-01"}, NodeSequence{reg, DeleteNode{}, DeleteNode{}}, ErrNotFound, 0},
		{"precondition holds", node, Precondition[NodeCommand]{ResourceVersion: 42, Command: SetNodeLabels{Labels: map[string]string{"a": "b"}}}, nil, -1},
		{"precondition stale", node, Precondition[NodeCommand]{ResourceVersion: 41, Command: DeleteNode{}}, ErrConflict, 0},
		{"no precondition", node, Precondition[NodeCommand]{Command: DeleteNode{}}, nil, 1},
		{"precondition on nothing is the command's", Node{Name: "gone"}, Precondition[NodeCommand]{ResourceVersion: 1, Command: DeleteNode{}}, ErrNotFound, 0},
		{"precondition around a pod command", node, Precondition[PodCommand]{Command: DeletePod{}}, ErrInvalid, 0},
		{"delete of nothing", Node{Name: "gone"}, DeleteNode{}, ErrNotFound, 0},
		{"if exists on nothing", Node{Name: "gone"}, IfExists[NodeCommand]{Command: DeleteNode{}}, nil, 0},
		{"if exists", node, IfExists[NodeCommand]{Command: DeleteNode{}}, nil, 1},
		{"require exists", Node{Name: "gone"}, RequireExists[NodeCommand]{Command: DrainNode{}}, ErrNotFound, 0},
		{"from nothing to do", node, NodeFrom(func(Node) (NodeCommand, error) { return nil, nil }), nil, 0},
		{"from", node, NodeFrom(func(Node) (NodeCommand, error) { return DeleteNode{}, nil }), nil, 1},
		{"reporting: stopped", stopped, IfNodeReporting{Command: MarkNodeUnreachable{}}, nil, 0},
		{"reporting: gone", Node{Name: "gone"}, IfNodeReporting{Command: MarkNodeUnreachable{}}, nil, 0},
		{"kubelet register over another kind", node, RegisterKubeletNode{Registration: reg.Registration}, ErrConflict, 0},
		{"kubelet deregister of another kind", node, DeregisterKubeletNode{}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideNode(tt.n, tt.cmd, at(2))
			checkDecided(t, evs, err, tt.wantErr, tt.events)
		})
	}
}

// TestStaleObjectWords keeps the refusal in kube-apiserver's words.
func TestStaleObjectWords(t *testing.T) {
	got := StaleObject("nodes", "web-01").Error()
	want := `Operation cannot be fulfilled on nodes "web-01": the object has been modified; please apply your changes to the latest version and try again: conflict`
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPodCommandWrappers covers the pod's wrappers and EvictPod.
func TestPodCommandWrappers(t *testing.T) {
	running := podAfter(t, t0, createPod("web"), BindPod{NodeName: "n1"})
	terminating, _, err := decidePod(t, running, DeletePod{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	grace := int64(1)
	tests := []struct {
		name    string
		p       Pod
		cmd     PodCommand
		wantErr error
		events  int
	}{
		{"same pod", running, IfSamePod{UID: running.UID, NodeName: "n1", Command: DeletePod{}}, nil, -1},
		{"replaced", running, IfSamePod{UID: "other", Command: DeletePod{}}, nil, 0},
		{"moved", running, IfSamePod{UID: running.UID, NodeName: "n2", Command: DeletePod{}}, nil, 0},
		{"evict", running, EvictPod{Reason: ReasonEvictionByEvictionAPI, Message: "m"}, nil, 2},
		{"evict a terminating pod", terminating, EvictPod{Reason: ReasonEvictionByEvictionAPI}, nil, 0},
		{"sequence", running, PodSequence{TargetPodDisruption{Reason: ReasonDeletionByTaintManager, Message: "m"}, DeletePod{GracePeriodSeconds: &grace}}, nil, 2},
		{"finalize waits for finalizers", withFinalizer(terminating), FinalizePod{WaitForFinalizers: true}, nil, 0},
		{"finalize refused by finalizers", withFinalizer(terminating), FinalizePod{}, ErrConflict, 0},
		{"address for a replaced pod", running, AssignPodIP{PodUID: "other"}, ErrConflict, 0},
		{"require exists", Pod{Namespace: "default", Name: "gone"}, RequireExists[PodCommand]{Command: DeletePod{}}, ErrNotFound, 0},
		{"from", running, PodFrom(func(Pod) (PodCommand, error) { return nil, nil }), nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecidePod(tt.p, tt.cmd, at(1))
			checkDecided(t, evs, err, tt.wantErr, tt.events)
		})
	}
}

func withFinalizer(p Pod) Pod {
	p.Finalizers = []string{"example.com/hold"}
	return p
}

func TestKeyString(t *testing.T) {
	for _, tt := range []struct {
		key  Key
		want string
	}{{Key{Name: "web-01"}, "web-01"}, {Key{Namespace: "default", Name: "nginx"}, "default/nginx"}, {Key{}, ""}} {
		if got := tt.key.String(); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.key, got, tt.want)
		}
	}
}

// checkDecided fails unless a decision ended in wantErr (nil for none)
// with events events, or some when events is negative.
func checkDecided(t *testing.T, evs []Event, err, wantErr error, events int) {
	t.Helper()
	if !errors.Is(err, wantErr) || (wantErr == nil && err != nil) {
		t.Fatalf("err = %v, want %v", err, wantErr)
	}
	if events >= 0 && len(evs) != events {
		t.Errorf("%d events, want %d: %v", len(evs), events, evs)
	}
	if events < 0 && len(evs) == 0 {
		t.Errorf("no events")
	}
}

// TestFrom: a command made from the object as it stands is decided on it;
// none is nothing to do; a From of another aggregate is bad input.
func TestFrom(t *testing.T) {
	evs, err := DecideConfigMap(ConfigMap{}, cmContent{Data: map[string]string{"k": "v"}}.create("default", "c", "u"), at(1))
	if err != nil {
		t.Fatal(err)
	}
	cm := ConfigMap{}
	for _, e := range evs {
		cm = EvolveConfigMap(cm, e)
	}
	relabel := From[ConfigMap, ConfigMapCommand](func(cur ConfigMap) (ConfigMapCommand, error) {
		meta := cur.ObjectMeta
		meta.Labels = map[string]string{"seen": cur.Spec.Data["k"]}
		return UpdateConfigMap{Meta: meta, Spec: cur.Spec}, nil
	})
	evs, err = DecideConfigMap(cm, relabel, at(2))
	checkDecided(t, evs, err, nil, 1)
	if got := evs[0].(ConfigMapMetadataChanged).Labels["seen"]; got != "v" {
		t.Errorf("the command was not made from the ConfigMap as it stands: label %q", got)
	}
	nothing := From[ConfigMap, ConfigMapCommand](func(ConfigMap) (ConfigMapCommand, error) { return nil, nil })
	evs, err = DecideConfigMap(cm, nothing, at(2))
	checkDecided(t, evs, err, nil, 0)
	other := From[Lease, ConfigMapCommand](func(Lease) (ConfigMapCommand, error) { return DeleteConfigMap{}, nil })
	evs, err = DecideConfigMap(cm, other, at(2))
	checkDecided(t, evs, err, ErrInvalid, 0)
}

package replicaset

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
)

// Event types, as the tests compare what was written.
var (
	created         = domain.PodCreated{}.EventType()
	ownersChanged   = domain.PodOwnersChanged{}.EventType()
	deletion        = domain.PodDeletionRequested{}.EventType()
	finalized       = domain.PodFinalized{}.EventType()
	statusRecorded  = domain.ReplicaSetStatusRecorded{}.EventType()
	recordedForWeb  = map[string][]string{"default/web": {statusRecorded}}
	deletedAtOnce   = []string{deletion, finalized}
	deletedGraceful = []string{deletion}
)

func TestReconcile(t *testing.T) {
	web3 := webRS(3)
	gone := domain.ReplicaSet{ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web"}, Deleted: true, Version: 5}
	slow := webRS(3)
	slow.Spec.MinReadySeconds = 30
	noContainers := webRS(1)
	noContainers.Spec.Template.Spec.Containers = nil

	tests := []struct {
		name string
		// rs is the ReplicaSet default/web; none when nil.
		rs   *domain.ReplicaSet
		pods []domain.Pod
		// now is the seconds past T0 at which it reconciles.
		now int
		// wantWritten are the pods' events, by pod.
		wantWritten map[string][]string
		// wantStatus is web's status afterwards; nil for none written.
		wantStatus  *domain.ReplicaSetStatus
		wantRequeue time.Duration
		wantErr     bool
		// wantTerminal: the error is one retrying cannot fix.
		wantTerminal bool
	}{
		{
			name:        "scale up from 0 creates 3 pods",
			rs:          &web3,
			wantWritten: map[string][]string{"web-p0000": {created}, "web-p0001": {created}, "web-p0002": {created}},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ObservedGeneration: 2},
		},
		{
			name: "scale down deletes unscheduled, then not ready, then the newest",
			rs:   ptr(webRS(1)),
			pods: []domain.Pod{
				pod("old", onNode("n1")),
				pod("newer", onNode("n2"), createdAt(5)),
				pod("pending", unscheduled),
				pod("sick", onNode("n3"), notReady),
			},
			wantWritten: map[string][]string{"pending": deletedAtOnce, "sick": deletedGraceful, "newer": deletedGraceful},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 2},
		},
		{
			name: "scale down spreads: a node with two of the pods loses one",
			rs:   ptr(webRS(2)),
			pods: []domain.Pod{
				pod("a", onNode("n1"), createdAt(9)),
				pod("b", onNode("n2"), createdAt(1)),
				pod("c", onNode("n2"), createdAt(2)),
			},
			wantWritten: map[string][]string{"c": deletedGraceful},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 2},
		},
		{
			name: "scale down takes the lower deletion cost first, before the newer pod",
			rs:   ptr(webRS(1)),
			pods: []domain.Pod{
				pod("cheap", onNode("n1")),
				pod("dear", onNode("n2"), createdAt(5), annotated(domain.PodDeletionCostAnnotation, "100")),
			},
			wantWritten: map[string][]string{"cheap": deletedGraceful},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 2},
		},
		{
			name:        "an evicted pod is replaced",
			rs:          &web3,
			pods:        []domain.Pod{pod("a"), pod("b"), pod("evicted", terminating)},
			wantWritten: map[string][]string{"web-p0000": {created}},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 2},
		},
		{
			name:        "a finished pod does not count, and is left",
			rs:          ptr(webRS(1)),
			pods:        []domain.Pod{pod("done", phase(domain.PodSucceeded))},
			wantWritten: map[string][]string{"web-p0000": {created}},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2},
		},
		{
			name:        "an orphan the selector matches is adopted instead of creating a pod",
			rs:          ptr(webRS(2)),
			pods:        []domain.Pod{pod("a"), pod("orphan", owners(), labels(map[string]string{"app": "web"}))},
			wantWritten: map[string][]string{"orphan": {ownersChanged}},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 2},
		},
		{
			name: "pods of another namespace, another ReplicaSet or a kubelet are left alone",
			rs:   ptr(webRS(1)),
			pods: []domain.Pod{
				pod("a"),
				pod("elsewhere", inNamespace("other"), owners()),
				pod("api", owners(apiOwner)),
				pod("kubelets", owners(), observed),
				pod("leaving", owners(), terminating),
				pod("unmatched", owners(), labels(map[string]string{"app": "db"})),
			},
			wantStatus: &domain.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 2},
		},
		{
			name:        "a pod the selector no longer matches is released and replaced",
			rs:          ptr(webRS(1)),
			pods:        []domain.Pod{pod("relabelled", labels(map[string]string{"app": "canary"}))},
			wantWritten: map[string][]string{"relabelled": {ownersChanged}, "web-p0000": {created}},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2},
		},
		{
			name: "status counts ready and available pods; it wakes when the next is available",
			rs:   &slow,
			now:  100,
			pods: []domain.Pod{
				pod("long", readyAt(50)),
				pod("recent", readyAt(90), labels(map[string]string{"app": "web"})),
				pod("starting", notReady),
			},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 2},
			wantRequeue: 20 * time.Second,
		},
		{
			name: "a deleted ReplicaSet's pods are deleted",
			rs:   &gone,
			pods: []domain.Pod{
				pod("running"),
				pod("pending", unscheduled),
				pod("done", phase(domain.PodFailed)),
				pod("shared", owners(webRS(0).OwnerReference(), domain.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cfg", UID: "cm"})),
				pod("leaving", terminating),
				pod("api", owners(apiOwner)),
			},
			wantWritten: map[string][]string{"running": deletedGraceful, "pending": deletedAtOnce, "done": deletedAtOnce, "shared": {ownersChanged}},
		},
		{
			name:        "a ReplicaSet never seen has its pods collected too",
			pods:        []domain.Pod{pod("running")},
			wantWritten: map[string][]string{"running": deletedGraceful},
		},
		{
			name:        "the pods of an earlier ReplicaSet of the name are collected, not counted",
			rs:          ptr(webRS(1)),
			pods:        []domain.Pod{pod("old", owners(domain.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-before", Controller: true}))},
			wantWritten: map[string][]string{"old": deletedGraceful, "web-p0000": {created}},
			wantStatus:  &domain.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2},
		},
		{
			name:         "a template the domain refuses is a terminal error, the status still recorded",
			rs:           &noContainers,
			wantErr:      true,
			wantTerminal: true,
			wantStatus:   &domain.ReplicaSetStatus{ObservedGeneration: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sets []domain.ReplicaSet
			if tt.rs != nil {
				sets = append(sets, *tt.rs)
			}
			w := newWorld(t, DefaultConfig(), sets, tt.pods, at(tt.now))
			res, err := w.reconcile(t, webKey)
			if (err != nil) != tt.wantErr || reconcilers.IsTerminal(err) != tt.wantTerminal {
				t.Fatalf("Reconcile: %v, want an error %v, terminal %v", err, tt.wantErr, tt.wantTerminal)
			}
			if res.RequeueAfter != tt.wantRequeue {
				t.Errorf("RequeueAfter = %s, want %s", res.RequeueAfter, tt.wantRequeue)
			}
			if diff := cmp.Diff(tt.wantWritten, w.pods.Written, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("pods written (-want +got):\n%s", diff)
			}
			var wantRS map[string][]string
			if tt.wantStatus != nil {
				wantRS = recordedForWeb
				if diff := cmp.Diff(*tt.wantStatus, w.sets.Objects[webRS(0).Key()].Status); diff != "" {
					t.Errorf("status (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(wantRS, w.sets.Written, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("replicasets written (-want +got):\n%s", diff)
			}
			herd := domain.SourceHerd
			for _, f := range w.pods.Asked {
				if !cmp.Equal(f, projections.PodFilter{Namespace: "default", Source: &herd, Controllers: []string{"ReplicaSet/web", ""}}) {
					t.Errorf("listed pods by %+v, want herd's of the namespace that are web's or no one's", f)
				}
			}
			if tt.wantErr {
				return
			}

			// Delivery is at least once: the same key again changes
			// nothing.
			res, err = w.reconcile(t, webKey)
			if err != nil || res.RequeueAfter != tt.wantRequeue {
				t.Fatalf("again: %+v %v", res, err)
			}
			if len(w.pods.Written)+len(w.sets.Written) > 0 {
				t.Errorf("again wrote pods %v, replicasets %v", w.pods.Written, w.sets.Written)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestCreatedPods: the pods made are the template's, named as
// generateName names them, controlled by the ReplicaSet, in batches that
// double.
func TestCreatedPods(t *testing.T) {
	rs := webRS(5)
	grace := int64(10)
	rs.Spec.Template.TerminationGracePeriodSeconds = &grace
	w := newWorld(t, DefaultConfig(), []domain.ReplicaSet{rs}, nil, at(0))
	if _, err := w.reconcile(t, webKey); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 2}, w.pods.Batches); diff != "" {
		t.Errorf("batch sizes (-want +got):\n%s", diff)
	}
	p := w.pods.Pods[domain.Key{Namespace: "default", Name: "web-p0003"}]
	if p.UID != "uid-3" || p.Spec.TerminationGracePeriodSeconds != 10 || !cmp.Equal(p.Labels, webLabels()) ||
		!rs.Owns(p) || !cmp.Equal(p.Owners, []domain.OwnerReference{rs.OwnerReference()}) || p.Spec.Containers[0].Image != "nginx" {
		t.Errorf("created pod: %+v", p)
	}
}

func TestBurstReplicasBoundsOneReconcile(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BurstReplicas = 2
	w := newWorld(t, cfg, []domain.ReplicaSet{webRS(5)}, nil, at(0))
	for i, want := range []int32{2, 4, 5} {
		if _, err := w.reconcile(t, webKey); err != nil {
			t.Fatal(err)
		}
		if got := w.sets.Objects[webRS(0).Key()].Status.Replicas; got != want {
			t.Errorf("after reconcile %d: %d replicas, want %d", i+1, got, want)
		}
	}
}

// TestReadFailures: what cannot be read is an error to retry; a
// ReplicaSet without a UID, which could not tell its pods, is terminal.
func TestReadFailures(t *testing.T) {
	errRead := errors.New("database is locked")
	w := newWorld(t, DefaultConfig(), []domain.ReplicaSet{webRS(1)}, nil, at(0))
	w.pods.ListErr = errRead
	if _, err := w.reconcile(t, webKey); !errors.Is(err, errRead) || reconcilers.IsTerminal(err) {
		t.Errorf("a failed pod list: %v", err)
	}
	noUID := webRS(1)
	noUID.UID = ""
	w.sets.Objects[noUID.Key()] = noUID
	w.pods.ListErr = nil
	if _, err := w.reconcile(t, webKey); !errors.Is(err, domain.ErrInvalid) || !reconcilers.IsTerminal(err) {
		t.Errorf("a ReplicaSet without a uid: %v", err)
	}
	w.sets.Err = errRead
	if _, err := w.reconcile(t, webKey); !errors.Is(err, errRead) || reconcilers.IsTerminal(err) {
		t.Errorf("a failed get: %v", err)
	}
	if len(w.pods.Written)+len(w.sets.Written) > 0 {
		t.Errorf("wrote pods %v, replicasets %v", w.pods.Written, w.sets.Written)
	}
}

// podFilter is what the reconciler lists: herd's pods of namespace.
func podFilter(namespace string) projections.PodFilter {
	herd := domain.SourceHerd
	return projections.PodFilter{Namespace: namespace, Source: &herd}
}

// TestAFailedAdoptionCreatesNothing: the orphans it could not adopt are
// not replaced by new pods; the next reconcile tries again.
func TestAFailedAdoptionCreatesNothing(t *testing.T) {
	errWrite := errors.New("disk full")
	w := newWorld(t, DefaultConfig(), []domain.ReplicaSet{webRS(2)}, []domain.Pod{pod("orphan", owners())}, at(0))
	w.pods.BatchErr = errWrite
	if _, err := w.reconcile(t, webKey); !errors.Is(err, errWrite) {
		t.Fatalf("Reconcile: %v", err)
	}
	if diff := cmp.Diff([]int{1}, w.pods.Batches); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	if len(w.sets.Written) > 0 {
		t.Errorf("recorded %v", w.sets.Written)
	}
}

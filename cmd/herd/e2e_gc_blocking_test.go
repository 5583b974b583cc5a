package main

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestForegroundDeletionWaitsForEveryBlockingDependent: client-go's
// default clientset (protobuf) over real HTTP. A Deployment deleted in the
// foreground keeps its foregroundDeletion finalizer while a pod it owns
// directly with blockOwnerDeletion is held terminating by a finalizer,
// after its own ReplicaSet is gone; a ConfigMap that another owner keeps
// loses its reference to it rather than hold it; once the pod's
// finalizer is lifted both the pod and the Deployment go.
func TestForegroundDeletionWaitsForEveryBlockingDependent(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	cs := newClientset(t, &rest.Config{Host: srv.URL})
	ctx := t.Context()
	const ns = "default"

	hold := createGCDeployment(t, cs, "hold")
	keep := createGCDeployment(t, cs, "keep")
	ref := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: hold.Name, UID: hold.UID, BlockOwnerDeletion: ptr(true)}
	pod := e2ePod("held-pod", "")
	pod.OwnerReferences = []metav1.OwnerReference{ref}
	pod.Finalizers = []string{"example.com/cleanup"}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shared", OwnerReferences: []metav1.OwnerReference{
		ref, {APIVersion: "apps/v1", Kind: "Deployment", Name: keep.Name, UID: keep.UID},
	}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The Deployment's own ReplicaSet exists before it is deleted.
	eventually(t, 30*time.Second, func() error {
		if n, err := replicaSetsOwnedBy(ctx, cs, hold.UID); err != nil || n == 0 {
			return fmt.Errorf("ReplicaSets of hold: %d, %w; want its own", n, err)
		}
		return nil
	})
	foreground := metav1.DeletePropagationForeground
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, hold.Name, metav1.DeleteOptions{PropagationPolicy: &foreground}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() error {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "held-pod", metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("pod held-pod: %w", err)
		}
		if p.DeletionTimestamp == nil {
			return fmt.Errorf("pod held-pod is not terminating")
		}
		if n, err := replicaSetsOwnedBy(ctx, cs, hold.UID); err != nil || n != 0 {
			return fmt.Errorf("ReplicaSets of hold: %d, %w; want none", n, err)
		}
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "shared", metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("ConfigMap shared, which keep keeps: %w", err)
		}
		if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].UID != keep.UID {
			return fmt.Errorf("ConfigMap shared names %+v; want keep alone", cm.OwnerReferences)
		}
		return nil
	})
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, hold.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the Deployment went while its pod, which blocks it, is terminating: %v", err)
	}
	if d.DeletionTimestamp == nil || !slices.Contains(d.Finalizers, metav1.FinalizerDeleteDependents) {
		t.Errorf("the Deployment waiting for its pod: deletionTimestamp %v, finalizers %v; want set, [foregroundDeletion]", d.DeletionTimestamp, d.Finalizers)
	}

	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, "held-pod", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("lift the finalizer: %v", err)
	}
	awaitGone(t, "pod held-pod", func(ctx context.Context) error {
		_, err := cs.CoreV1().Pods(ns).Get(ctx, "held-pod", metav1.GetOptions{})
		return err
	})
	awaitGone(t, "Deployment hold", func(ctx context.Context) error {
		_, err := cs.AppsV1().Deployments(ns).Get(ctx, hold.Name, metav1.GetOptions{})
		return err
	})
	if _, err := cs.AppsV1().Deployments(ns).Get(ctx, keep.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("keep: %v", err)
	}
}

// replicaSetsOwnedBy counts the ReplicaSets of default that name the
// owner of uid.
func replicaSetsOwnedBy(ctx context.Context, cs kubernetes.Interface, uid types.UID) (int, error) {
	list, err := cs.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rs := range list.Items {
		if slices.ContainsFunc(rs.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == uid }) {
			n++
		}
	}
	return n, nil
}

// TestOrphanReleasesEveryKind: client-go's default clientset (protobuf)
// over real HTTP. A Deployment deleted with its dependents orphaned
// leaves the Job, DaemonSet, lease and PodDisruptionBudget it owns in
// place, each without its reference to it.
func TestOrphanReleasesEveryKind(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	cs := newClientset(t, &rest.Config{Host: srv.URL})
	ctx := t.Context()
	const ns = "default"
	owner := createGCDeployment(t, cs, "owner")
	refs := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: ptr(true)}}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, OwnerReferences: refs} }
	template := func(labels map[string]string, restart corev1.RestartPolicy) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{RestartPolicy: restart, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: meta("batch"),
		Spec: batchv1.JobSpec{Suspend: ptr(true), Template: template(nil, corev1.RestartPolicyNever)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dsLabels := map[string]string{"app": "agent"}
	if _, err := cs.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: meta("agent"),
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: dsLabels}, Template: template(dsLabels, corev1.RestartPolicyAlways)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoordinationV1().Leases(ns).Create(ctx, &coordinationv1.Lease{ObjectMeta: meta("lock"),
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("owner")}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	one := intstr.FromInt32(1)
	if _, err := cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: meta("budget"),
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: dsLabels}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	orphan := metav1.DeletePropagationOrphan
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	owners := map[string]func() (metav1.Object, error){
		"Job batch": func() (metav1.Object, error) { return cs.BatchV1().Jobs(ns).Get(ctx, "batch", metav1.GetOptions{}) },
		"DaemonSet agent": func() (metav1.Object, error) {
			return cs.AppsV1().DaemonSets(ns).Get(ctx, "agent", metav1.GetOptions{})
		},
		"Lease lock": func() (metav1.Object, error) {
			return cs.CoordinationV1().Leases(ns).Get(ctx, "lock", metav1.GetOptions{})
		},
		"PodDisruptionBudget budget": func() (metav1.Object, error) {
			return cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "budget", metav1.GetOptions{})
		},
	}
	eventually(t, 30*time.Second, func() error {
		for what, get := range owners {
			o, err := get()
			if err != nil {
				return fmt.Errorf("%s, orphaned: %w", what, err)
			}
			if refs := o.GetOwnerReferences(); len(refs) != 0 {
				return fmt.Errorf("%s, orphaned, still names %+v", what, refs)
			}
		}
		return nil
	})
}

// TestControllersReferencesBlockOwnerDeletion: client-go's default
// clientset (protobuf) over real HTTP. The ReplicaSet a Deployment
// creates, that ReplicaSet's pod and a Job's pod name their controller
// with blockOwnerDeletion, as Kubernetes' controllers write them.
func TestControllersReferencesBlockOwnerDeletion(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	cs := newClientset(t, &rest.Config{Host: srv.URL})
	ctx := t.Context()
	const ns = "default"
	labels := map[string]string{"app": "web"}
	d, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := cs.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	blocking := func(what string, refs []metav1.OwnerReference, uid types.UID) error {
		if len(refs) != 1 || refs[0].UID != uid || refs[0].Controller == nil || !*refs[0].Controller ||
			refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
			return fmt.Errorf("%s names %+v; want its controller, with blockOwnerDeletion", what, refs)
		}
		return nil
	}
	eventually(t, 30*time.Second, func() error {
		rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(rss.Items) != 1 {
			return fmt.Errorf("ReplicaSets of web: %v, %w", rss, err)
		}
		rs := rss.Items[0]
		if err := blocking("ReplicaSet "+rs.Name, rs.OwnerReferences, d.UID); err != nil {
			return err
		}
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		var fromRS, fromJob int
		for _, p := range pods.Items {
			for _, o := range p.OwnerReferences {
				switch o.UID {
				case rs.UID:
					fromRS++
					if err := blocking("pod "+p.Name, p.OwnerReferences, rs.UID); err != nil {
						return err
					}
				case j.UID:
					fromJob++
					if err := blocking("pod "+p.Name, p.OwnerReferences, j.UID); err != nil {
						return err
					}
				}
			}
		}
		if fromRS == 0 || fromJob == 0 {
			return fmt.Errorf("pods of the ReplicaSet %d, of the Job %d; want some of each", fromRS, fromJob)
		}
		return nil
	})
}

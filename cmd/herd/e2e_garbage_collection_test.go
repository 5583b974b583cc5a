package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// TestGarbageCollectionOfAnyOwner: client-go's default clientset
// (protobuf) over real HTTP. A ConfigMap and a pod owned by a Deployment
// go once the Deployment is deleted; blockOwnerDeletion comes back as it
// was written; a cycle of two ReplicaSets is collected once one is
// deleted; a Deployment deleted with its dependents orphaned leaves its
// ConfigMap without the reference; one deleted in the foreground takes
// its ConfigMap with it.
func TestGarbageCollectionOfAnyOwner(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	cs := newClientset(t, &rest.Config{Host: srv.URL})
	ctx := t.Context()
	const ns = "default"

	d := createGCDeployment(t, cs, "owner")
	ref := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, BlockOwnerDeletion: ptr(true)}
	cm := createOwnedConfigMap(t, cs, "owned-config", ref)
	if got := cm.OwnerReferences; len(got) != 1 || got[0].UID != d.UID || got[0].BlockOwnerDeletion == nil || !*got[0].BlockOwnerDeletion {
		t.Errorf("the ConfigMap's ownerReferences as created: %+v, want the Deployment's with blockOwnerDeletion", got)
	}
	pod := e2ePod("owned-pod", "")
	pod.OwnerReferences = []metav1.OwnerReference{ref}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.CoreV1().Pods(ns).Get(ctx, "owned-pod", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o := got.OwnerReferences; len(o) != 1 || o[0].BlockOwnerDeletion == nil || !*o[0].BlockOwnerDeletion {
		t.Errorf("the pod's ownerReferences read back: %+v, want blockOwnerDeletion kept", o)
	}
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, d.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, "ConfigMap owned-config", func(ctx context.Context) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "owned-config", metav1.GetOptions{})
		return err
	})
	awaitGone(t, "pod owned-pod", func(ctx context.Context) error {
		_, err := cs.CoreV1().Pods(ns).Get(ctx, "owned-pod", metav1.GetOptions{})
		return err
	})

	// A cycle: ring-a owned by ring-b, ring-b by ring-a.
	a := createGCReplicaSet(t, cs, "ring-a", nil)
	b := createGCReplicaSet(t, cs, "ring-b", []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: a.Name, UID: a.UID}})
	// The ReplicaSet controller records ring-a's status meanwhile: update
	// it as a client does, again on a conflict.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cs.AppsV1().ReplicaSets(ns).Get(ctx, a.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: b.Name, UID: b.UID}}
		_, err = cs.AppsV1().ReplicaSets(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := cs.AppsV1().ReplicaSets(ns).Get(ctx, a.Name, metav1.GetOptions{}); err != nil || len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != b.UID {
		t.Fatalf("ring-a after its update: %v, owners %+v; want ring-b", err, got.OwnerReferences)
	}
	if err := cs.AppsV1().ReplicaSets(ns).Delete(ctx, a.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, "ReplicaSet ring-b", func(ctx context.Context) error {
		_, err := cs.AppsV1().ReplicaSets(ns).Get(ctx, "ring-b", metav1.GetOptions{})
		return err
	})

	// Orphan: the ConfigMap stays, without its reference.
	keeper := createGCDeployment(t, cs, "keeper")
	createOwnedConfigMap(t, cs, "kept-config", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: keeper.Name, UID: keeper.UID})
	orphan := metav1.DeletePropagationOrphan
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, keeper.Name, metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() error {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kept-config", metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("the orphaned ConfigMap: %w", err)
		}
		if len(cm.OwnerReferences) != 0 {
			return fmt.Errorf("the orphaned ConfigMap still names %+v", cm.OwnerReferences)
		}
		return nil
	})

	// Foreground: the Deployment waits while its ConfigMap goes.
	fg := createGCDeployment(t, cs, "fg")
	createOwnedConfigMap(t, cs, "fg-config", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: fg.Name, UID: fg.UID, BlockOwnerDeletion: ptr(true)})
	foreground := metav1.DeletePropagationForeground
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, fg.Name, metav1.DeleteOptions{PropagationPolicy: &foreground}); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, "ConfigMap fg-config", func(ctx context.Context) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "fg-config", metav1.GetOptions{})
		return err
	})
	awaitGone(t, "Deployment fg", func(ctx context.Context) error {
		_, err := cs.AppsV1().Deployments(ns).Get(ctx, "fg", metav1.GetOptions{})
		return err
	})
}

func ptr[T any](v T) *T { return &v }

// createGCDeployment creates a Deployment of no replicas in default.
func createGCDeployment(t *testing.T, cs kubernetes.Interface, name string) *appsv1.Deployment {
	t.Helper()
	labels := map[string]string{"app": name}
	d, err := cs.AppsV1().Deployments("default").Create(t.Context(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(0)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// createGCReplicaSet creates a ReplicaSet of no replicas in default.
func createGCReplicaSet(t *testing.T, cs kubernetes.Interface, name string, owners []metav1.OwnerReference) *appsv1.ReplicaSet {
	t.Helper()
	labels := map[string]string{"ring": name}
	rs, err := cs.AppsV1().ReplicaSets("default").Create(t.Context(), &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(int32(0)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// createOwnedConfigMap creates a ConfigMap in default owned by ref.
func createOwnedConfigMap(t *testing.T, cs kubernetes.Interface, name string, ref metav1.OwnerReference) *corev1.ConfigMap {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{ref}},
		Data:       map[string]string{"k": "v"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// awaitGone waits until get answers 404 for what.
func awaitGone(t *testing.T, what string, get func(context.Context) error) {
	t.Helper()
	eventually(t, 30*time.Second, func() error {
		switch err := get(t.Context()); {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		}
		return fmt.Errorf("%s outlived its owners", what)
	})
}

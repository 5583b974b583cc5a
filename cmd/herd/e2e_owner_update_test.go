package main

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// TestAnUpdateGivesAWorkloadAnotherOwner: client-go's default clientset
// (protobuf) over real HTTP. A Deployment created owned by one
// Deployment is given another by an update (a PUT), and a StatefulSet
// that had none is given one by a merge patch of its ownerReferences;
// both read back as written, and both go when their new owner is
// deleted, as kube-apiserver's garbage collector deletes them.
func TestAnUpdateGivesAWorkloadAnotherOwner(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	cs := newClientset(t, &rest.Config{Host: srv.URL})
	ctx := t.Context()
	const ns = "default"

	first, second := createGCDeployment(t, cs, "first"), createGCDeployment(t, cs, "second")
	refTo := func(d *appsv1.Deployment) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID}
	}
	labels := map[string]string{"app": "child"}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "child", OwnerReferences: []metav1.OwnerReference{refTo(first)}},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr(int32(0)), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The Deployment controller records the child's status meanwhile:
	// update it as a client does, again on a conflict.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cs.AppsV1().Deployments(ns).Get(ctx, "child", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.OwnerReferences = []metav1.OwnerReference{refTo(second)}
		_, err = cs.AppsV1().Deployments(ns).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := cs.AppsV1().Deployments(ns).Get(ctx, "child", metav1.GetOptions{}); err != nil || len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != second.UID {
		t.Fatalf("the child Deployment after its update: %v, owners %+v; want only %s", err, got.OwnerReferences, second.Name)
	}

	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "adopted"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(0)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "adopted"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "adopted"}}, Spec: template.Spec}},
	}
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":%q,"uid":%q}]}}`, second.Name, second.UID)
	got, err := cs.AppsV1().StatefulSets(ns).Patch(ctx, "adopted", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != second.UID {
		t.Fatalf("the StatefulSet after the patch names %+v; want %s", got.OwnerReferences, second.Name)
	}

	if err := cs.AppsV1().Deployments(ns).Delete(ctx, second.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, "Deployment child", func(ctx context.Context) error {
		_, err := cs.AppsV1().Deployments(ns).Get(ctx, "child", metav1.GetOptions{})
		return err
	})
	awaitGone(t, "StatefulSet adopted", func(ctx context.Context) error {
		_, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "adopted", metav1.GetOptions{})
		return err
	})
	if _, err := cs.AppsV1().Deployments(ns).Get(ctx, first.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the child's first owner: %v", err)
	}
}

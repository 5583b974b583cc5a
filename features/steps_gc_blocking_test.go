package features

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/cucumber/godog"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const gcPodsPath = "/api/v1/namespaces/default/pods"

func (w *world) registerGCBlockingSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a pod "([^"]+)" is owned by Deployment "([^"]+)", blocking its deletion, and held by the finalizer "([^"]+)"$`, w.podOwnedAndHeld)
	sc.Step(`^Deployment "([^"]+)" stays, waiting for its dependents$`, w.deploymentWaits)
	sc.Step(`^the finalizer of pod "([^"]+)" is lifted$`, w.podFinalizerLifted)
	sc.Step(`^there is no Deployment "([^"]+)"$`, func(name string) error { return w.gone(deploymentsPath + "/" + url.PathEscape(name)) })
	sc.Step(`^the Job "([^"]+)" is owned by Deployment "([^"]+)", blocking its deletion$`, w.jobOwnedByDeployment)
	sc.Step(`^the Job "([^"]+)" names no owner$`, w.jobNamesNoOwner)
	sc.Step(`^the Deployment "([^"]+)" of 1 pod of image "([^"]+)" is owned by Deployment "([^"]+)", blocking its deletion$`, w.deploymentOwnedByDeployment)
	sc.Step(`^the Deployment "([^"]+)" names no owner$`, w.deploymentNamesNoOwner)
	sc.Step(`^the Deployment "([^"]+)" is given Deployment "([^"]+)" as its owner in place of the one it had$`, w.deploymentGivenOwner)
	sc.Step(`^no pod is labelled app=([\w-]+)$`, w.noPodLabelled)
	sc.Step(`^the pods of Deployment "([^"]+)" name their ReplicaSet, which names the Deployment, each as controller blocking its deletion$`, w.deploymentChainBlocks)
}

// deploymentRef is the reference to Deployment name, blocking its deletion.
func (w *world) deploymentRef(name string) (metav1.OwnerReference, error) {
	var d appsv1.Deployment
	if err := w.get(deploymentsPath+"/"+url.PathEscape(name), &d); err != nil {
		return metav1.OwnerReference{}, err
	}
	block := true
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, BlockOwnerDeletion: &block}, nil
}

// podOwnedAndHeld creates a pod no node can take (its nodeSelector
// matches none), so that only its finalizer keeps it once deleted.
func (w *world) podOwnedAndHeld(name, owner, finalizer string) error {
	ref, err := w.deploymentRef(owner)
	if err != nil {
		return err
	}
	if err := w.writeJSON(http.MethodPost, gcPodsPath, "application/json", corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{ref}, Finalizers: []string{finalizer}},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"example.com/nowhere": "true"},
			Containers: []corev1.Container{{Name: "main", Image: "helper:1"}}},
	}); err != nil {
		return err
	}
	return w.settle()
}

func (w *world) deploymentWaits(name string) error {
	var d appsv1.Deployment
	if err := w.get(deploymentsPath+"/"+url.PathEscape(name), &d); err != nil {
		return fmt.Errorf("Deployment %s went: %w", name, err)
	}
	if d.DeletionTimestamp == nil || !slices.Contains(d.Finalizers, metav1.FinalizerDeleteDependents) {
		return fmt.Errorf("Deployment %s: deletionTimestamp %v, finalizers %v; want it being deleted in the foreground", name, d.DeletionTimestamp, d.Finalizers)
	}
	return nil
}

func (w *world) podFinalizerLifted(name string) error {
	if err := w.writeJSON(http.MethodPatch, gcPodsPath+"/"+url.PathEscape(name), "application/merge-patch+json",
		map[string]any{"metadata": map[string]any{"finalizers": nil}}); err != nil {
		return err
	}
	return w.settle()
}

func (w *world) gone(path string) error {
	r, err := w.do(http.MethodGet, path, "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("want 404 NotFound, got %s", r)
	}
	return nil
}

// jobOwnedByDeployment creates a suspended Job, which runs no pods.
func (w *world) jobOwnedByDeployment(name, owner string) error {
	ref, err := w.deploymentRef(owner)
	if err != nil {
		return err
	}
	suspend := true
	if err := w.writeJSON(http.MethodPost, jobsPath, "application/json", batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{ref}},
		Spec: batchv1.JobSpec{Suspend: &suspend, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "migrate:1"}}}}},
	}); err != nil {
		return err
	}
	return w.settle()
}

func (w *world) jobNamesNoOwner(name string) error {
	var j batchv1.Job
	if err := w.get(jobsPath+"/"+url.PathEscape(name), &j); err != nil {
		return err
	}
	if len(j.OwnerReferences) != 0 {
		return fmt.Errorf("Job %s still names owners %+v", name, j.OwnerReferences)
	}
	return nil
}

func (w *world) deploymentOwnedByDeployment(name, image, owner string) error {
	ref, err := w.deploymentRef(owner)
	if err != nil {
		return err
	}
	one := int32(1)
	labels := map[string]string{"app": name}
	if err := w.writeJSON(http.MethodPost, deploymentsPath, "application/json", appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{ref}},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}}}},
	}); err != nil {
		return err
	}
	return w.settle()
}

// deploymentGivenOwner patches a Deployment's ownerReferences, as
// kubectl patch --type=merge does: the list is replaced whole.
func (w *world) deploymentGivenOwner(name, owner string) error {
	ref, err := w.deploymentRef(owner)
	if err != nil {
		return err
	}
	patch := map[string]any{"metadata": map[string]any{"ownerReferences": []metav1.OwnerReference{ref}}}
	if err := w.writeJSON(http.MethodPatch, deploymentsPath+"/"+url.PathEscape(name), "application/merge-patch+json", patch); err != nil {
		return err
	}
	return w.settle()
}

func (w *world) deploymentNamesNoOwner(name string) error {
	var d appsv1.Deployment
	if err := w.get(deploymentsPath+"/"+url.PathEscape(name), &d); err != nil {
		return err
	}
	if len(d.OwnerReferences) != 0 {
		return fmt.Errorf("Deployment %s still names owners %+v", name, d.OwnerReferences)
	}
	return nil
}

func (w *world) noPodLabelled(app string) error {
	var pods corev1.PodList
	if err := w.get(gcPodsPath+"?labelSelector="+url.QueryEscape("app="+app), &pods); err != nil {
		return err
	}
	if len(pods.Items) != 0 {
		names := make([]string, len(pods.Items))
		for i, p := range pods.Items {
			names[i] = p.Name
		}
		return fmt.Errorf("pods labelled app=%s remain: %v", app, names)
	}
	return nil
}

func (w *world) deploymentChainBlocks(name string) error {
	var d appsv1.Deployment
	if err := w.get(deploymentsPath+"/"+url.PathEscape(name), &d); err != nil {
		return err
	}
	var rss appsv1.ReplicaSetList
	if err := w.get(replicaSetsPath+"?labelSelector="+url.QueryEscape("app="+name), &rss); err != nil {
		return err
	}
	var pods corev1.PodList
	if err := w.get(gcPodsPath+"?labelSelector="+url.QueryEscape("app="+name), &pods); err != nil {
		return err
	}
	if len(rss.Items) == 0 || len(pods.Items) == 0 {
		return fmt.Errorf("Deployment %s: %d ReplicaSets, %d pods; want some of each", name, len(rss.Items), len(pods.Items))
	}
	blocks := func(what string, refs []metav1.OwnerReference, kind, owner string) error {
		if len(refs) != 1 || refs[0].Kind != kind || refs[0].Name != owner || refs[0].Controller == nil || !*refs[0].Controller ||
			refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
			return fmt.Errorf("%s names %+v; want %s %s as controller, blocking its deletion", what, refs, kind, owner)
		}
		return nil
	}
	owners := map[string]bool{}
	for _, rs := range rss.Items {
		if err := blocks("ReplicaSet "+rs.Name, rs.OwnerReferences, "Deployment", name); err != nil {
			return err
		}
		owners[rs.Name] = true
	}
	for _, p := range pods.Items {
		if len(p.OwnerReferences) != 1 || !owners[p.OwnerReferences[0].Name] {
			return fmt.Errorf("pod %s names %+v, not a ReplicaSet of %s", p.Name, p.OwnerReferences, name)
		}
		if err := blocks("pod "+p.Name, p.OwnerReferences, "ReplicaSet", p.OwnerReferences[0].Name); err != nil {
			return err
		}
	}
	return nil
}

package features

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/cucumber/godog"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (w *world) registerGarbageCollectionSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the ConfigMap "([^"]+)" is owned by Deployment "([^"]+)", blocking its deletion$`, w.configMapOwnedByDeployment)
	sc.Step(`^the ConfigMap "([^"]+)" names Deployment "([^"]+)" as its owner, blocking its deletion$`, w.configMapNamesOwner)
	sc.Step(`^the ConfigMap "([^"]+)" names no owner$`, w.configMapNamesNoOwner)
	sc.Step(`^ReplicaSets "([^"]+)" and "([^"]+)" own each other$`, w.replicaSetsOwnEachOther)
	sc.Step(`^there is no ReplicaSet "([^"]+)"$`, w.noReplicaSet)
	w.registerGCBlockingSteps(sc)
}

func (w *world) configMapOwnedByDeployment(name, owner string) error {
	var d appsv1.Deployment
	if err := w.get(deploymentsPath+"/"+url.PathEscape(owner), &d); err != nil {
		return err
	}
	block := true
	return w.writeJSON(http.MethodPost, configMapsPath, "application/json", corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, BlockOwnerDeletion: &block,
		}}},
		Data: map[string]string{"mode": "fast"},
	})
}

func (w *world) configMapNamesOwner(name, owner string) error {
	var cm corev1.ConfigMap
	if err := w.get(configMapPath(name), &cm); err != nil {
		return err
	}
	if o := cm.OwnerReferences; len(o) != 1 || o[0].Kind != "Deployment" || o[0].Name != owner ||
		o[0].BlockOwnerDeletion == nil || !*o[0].BlockOwnerDeletion {
		return fmt.Errorf("ConfigMap %s names owners %+v, want Deployment %s blocking its deletion", name, o, owner)
	}
	return nil
}

func (w *world) configMapNamesNoOwner(name string) error {
	var cm corev1.ConfigMap
	if err := w.get(configMapPath(name), &cm); err != nil {
		return err
	}
	if len(cm.OwnerReferences) != 0 {
		return fmt.Errorf("ConfigMap %s still names owners %+v", name, cm.OwnerReferences)
	}
	return nil
}

// replicaSetsOwnEachOther creates two ReplicaSets of no pods, b owned by
// a, then gives a b as its owner.
func (w *world) replicaSetsOwnEachOther(a, b string) error {
	create := func(name string, owners []metav1.OwnerReference) (appsv1.ReplicaSet, error) {
		zero := int32(0)
		labels := map[string]string{"ring": name}
		if err := w.writeJSON(http.MethodPost, replicaSetsPath, "application/json", appsv1.ReplicaSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
			ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners},
			Spec: appsv1.ReplicaSetSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "ring:1"}}}}},
		}); err != nil {
			return appsv1.ReplicaSet{}, err
		}
		var rs appsv1.ReplicaSet
		return rs, w.get(replicaSetsPath+"/"+url.PathEscape(name), &rs)
	}
	ra, err := create(a, nil)
	if err != nil {
		return err
	}
	rb, err := create(b, []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: ra.Name, UID: ra.UID}})
	if err != nil {
		return err
	}
	if err := w.get(replicaSetsPath+"/"+url.PathEscape(a), &ra); err != nil {
		return err
	}
	ra.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rb.Name, UID: rb.UID}}
	return w.writeJSON(http.MethodPut, replicaSetsPath+"/"+url.PathEscape(a), "application/json", ra)
}

func (w *world) noReplicaSet(name string) error {
	r, err := w.do(http.MethodGet, replicaSetsPath+"/"+url.PathEscape(name), "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("want 404 NotFound, got %s", r)
	}
	return nil
}

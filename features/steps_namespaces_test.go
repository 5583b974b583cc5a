package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func namespacePath(name string) string { return "/api/v1/namespaces/" + url.PathEscape(name) }

func (w *world) registerNamespaceSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the namespace "([^"]+)" exists$`, w.namespaceExists)
	sc.Step(`^a client deletes the namespace "([^"]+)"$`, w.deletesNamespace)
	sc.Step(`^the namespace "([^"]+)" is (Active|Terminating)$`, w.namespaceIs)
	sc.Step(`^the namespace "([^"]+)" is gone$`, w.namespaceGone)
	sc.Step(`^the ConfigMap "([^"]+)" exists in namespace "([^"]+)"$`, w.configMapExistsIn)
	sc.Step(`^a client asks for the ConfigMap "([^"]+)" in namespace "([^"]+)"$`, w.asksForConfigMapIn)
	sc.Step(`^namespace "([^"]+)" holds no ConfigMaps$`, w.holdsNoConfigMaps)
	sc.Step(`^namespace "([^"]+)" holds no (Deployments|ReplicaSets|Jobs|CronJobs|StatefulSets|DaemonSets|pods)$`, w.holdsNo)
	sc.Step(`^a client asks for pod "([^"]+)"$`, w.asksForPod)
}

// namespaceExists has an operator create the namespace.
func (w *world) namespaceExists(name string) error {
	body, err := json.Marshal(corev1.Namespace{TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil {
		return err
	}
	return w.mustWrite(http.MethodPost, "/api/v1/namespaces", "application/json", body)
}

func (w *world) deletesNamespace(name string) error {
	return w.write(http.MethodDelete, namespacePath(name), "", nil)
}

func (w *world) namespaceIs(name, phase string) error {
	var ns corev1.Namespace
	if err := w.get(namespacePath(name), &ns); err != nil {
		return err
	}
	if string(ns.Status.Phase) != phase {
		return fmt.Errorf("namespace %s is %s, want %s", name, ns.Status.Phase, phase)
	}
	return nil
}

func (w *world) namespaceGone(name string) error {
	r, err := w.do(http.MethodGet, namespacePath(name), "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("namespace %s is still there: %s", name, r)
	}
	return nil
}

func (w *world) configMapExistsIn(name, namespace string) error {
	body := fmt.Appendf(nil, `{"metadata":{"name":%q}}`, name)
	return w.mustWrite(http.MethodPost, namespacePath(namespace)+"/configmaps", "application/json", body)
}

// asksForConfigMapIn creates a ConfigMap; whether herd accepts it is for
// later steps to judge.
func (w *world) asksForConfigMapIn(name, namespace string) error {
	body := fmt.Appendf(nil, `{"metadata":{"name":%q}}`, name)
	return w.write(http.MethodPost, namespacePath(namespace)+"/configmaps", "application/json", body)
}

func (w *world) holdsNoConfigMaps(namespace string) error {
	var l corev1.ConfigMapList
	if err := w.get(namespacePath(namespace)+"/configmaps", &l); err != nil {
		return err
	}
	if len(l.Items) > 0 {
		return fmt.Errorf("namespace %s still holds %d ConfigMaps", namespace, len(l.Items))
	}
	return nil
}

// holdsNo checks that a list of the kind in the namespace, as kubectl
// get reads it, is empty.
func (w *world) holdsNo(namespace, kind string) error {
	path := map[string]string{
		"Deployments": "/apis/apps/v1", "ReplicaSets": "/apis/apps/v1", "StatefulSets": "/apis/apps/v1", "DaemonSets": "/apis/apps/v1",
		"Jobs": "/apis/batch/v1", "CronJobs": "/apis/batch/v1", "pods": "/api/v1",
	}[kind] + "/namespaces/" + url.PathEscape(namespace) + "/" + strings.ToLower(kind)
	var l metav1.PartialObjectMetadataList
	if err := w.get(path, &l); err != nil {
		return err
	}
	if len(l.Items) > 0 {
		names := make([]string, len(l.Items))
		for i, o := range l.Items {
			names[i] = o.Name
		}
		return fmt.Errorf("namespace %s still holds %s %v", namespace, kind, names)
	}
	return nil
}

// asksForPod creates a pod; whether herd accepts it is for later steps to
// judge.
func (w *world) asksForPod(ref string) error {
	return w.postPod(basicPod(ref))
}

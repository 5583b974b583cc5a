package conversions

import (
	"bytes"
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/domain"
)

func revisionSet(image string) domain.StatefulSet {
	c, err := StatefulSetFromAPI(func() (out appsv1.StatefulSet) {
		out.APIVersion, out.Kind, out.Name, out.Namespace = "apps/v1", "StatefulSet", "web", "default"
		out.Spec.Selector = SelectorToAPI(domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}})
		out.Spec.Template.Labels = map[string]string{"app": "web"}
		out.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: image}}
		return out
	}())
	if err != nil {
		panic(err)
	}
	return domain.StatefulSet{ObjectMeta: c.Meta, Spec: c.Spec}
}

// TestStatefulSetRevisionDataIsWhatKubectlComputes: a revision's data is
// byte for byte the patch kubectl rollout undo (of herd's Kubernetes
// version) computes of the StatefulSet as herd serves it (so an undo to the template already there
// is skipped), and applied to a StatefulSet with another template it
// gives back the first template, with the same revision name.
func TestStatefulSetRevisionDataIsWhatKubectlComputes(t *testing.T) {
	v1, v2 := revisionSet("nginx:1"), revisionSet("nginx:2")
	data, err := StatefulSetRevisionData(v1)
	if err != nil {
		t.Fatal(err)
	}
	// kubectl's getStatefulSetPatch, on the StatefulSet as it reads it.
	api := StatefulSetToAPI(v1)
	str, err := runtime.Encode(unstructured.UnstructuredJSONScheme, &api)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(str, &raw); err != nil {
		t.Fatal(err)
	}
	template := raw["spec"].(map[string]any)["template"].(map[string]any)
	template["$patch"] = "replace"
	kubectl, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
	if !bytes.Equal(data, kubectl) {
		t.Fatalf("data\n%s\nkubectl computes\n%s", data, kubectl)
	}
	restored, err := StatefulSetRevisionTemplate(v2, data)
	if err != nil {
		t.Fatal(err)
	}
	v2.Spec.Template = restored
	if domain.PodTemplateHash(v2.Spec.Template) != domain.PodTemplateHash(v1.Spec.Template) || restored.Spec.Containers[0].Image != "nginx:1" {
		t.Fatalf("restored %+v: template hash %s, want %s", restored, domain.PodTemplateHash(v2.Spec.Template), domain.PodTemplateHash(v1.Spec.Template))
	}
	if _, err := StatefulSetRevisionTemplate(v2, []byte(`{"spec":{"template":{"$patch":"replace","spec":{"restartPolicy":"Never"}}}}`)); err == nil {
		t.Fatal("a revision whose template herd refuses was applied")
	}
}

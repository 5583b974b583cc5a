package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

func TestPodSchemaFromTheTypes(t *testing.T) {
	s := Schemas(Kind{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Object: corev1.Pod{}})
	pod := s["io.k8s.api.core.v1.Pod"]
	if pod == nil {
		t.Fatalf("no Pod schema among %d", len(s))
	}
	gvk, _ := pod["x-kubernetes-group-version-kind"].([]map[string]string)
	if len(gvk) != 1 || gvk[0]["kind"] != "Pod" || gvk[0]["version"] != "v1" || gvk[0]["group"] != "" {
		t.Errorf("Pod's GVK %v", gvk)
	}
	props := pod["properties"].(map[string]Schema)
	for _, name := range []string{"apiVersion", "kind", "metadata", "spec", "status"} {
		if props[name] == nil {
			t.Errorf("Pod lacks %s (TypeMeta is inlined)", name)
		}
	}
	spec := props["spec"]
	if !strings.HasPrefix(spec["description"].(string), "Specification of the desired behavior of the pod.") {
		t.Errorf("pod.spec's description %q", spec["description"])
	}
	if ref := spec["allOf"].([]Schema)[0]["$ref"]; ref != "#/components/schemas/io.k8s.api.core.v1.PodSpec" {
		t.Errorf("pod.spec refers to %v", ref)
	}
	podSpec := s["io.k8s.api.core.v1.PodSpec"]
	containers := podSpec["properties"].(map[string]Schema)["containers"]
	if containers["type"] != "array" || containers["x-kubernetes-patch-merge-key"] != "name" || containers["x-kubernetes-patch-strategy"] != "merge" {
		t.Errorf("pod.spec.containers %v", containers)
	}
	if ref := containers["items"].(Schema)["$ref"]; ref != "#/components/schemas/io.k8s.api.core.v1.Container" {
		t.Errorf("containers' items refer to %v", ref)
	}
	if req, _ := podSpec["required"].([]string); len(req) != 1 || req[0] != "containers" {
		t.Errorf("PodSpec requires %v, want containers", req)
	}
	container := s["io.k8s.api.core.v1.Container"]
	if !strings.Contains(container["description"].(string), "A single application container") {
		t.Errorf("Container's description %q", container["description"])
	}
	if q := s["io.k8s.apimachinery.pkg.api.resource.Quantity"]; q["oneOf"] == nil {
		t.Errorf("Quantity %v, want a string or a number", q)
	}
	if tm := s["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]; tm["format"] != "date-time" {
		t.Errorf("Time %v", tm)
	}

	// Every reference resolves, and the whole is JSON.
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(data), `"$ref":"#/components/schemas/`)[1:] {
		name, _, _ := strings.Cut(part, `"`)
		if s[name] == nil {
			t.Errorf("dangling reference to %s", name)
		}
	}
}

func TestName(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[corev1.Node](): "io.k8s.api.core.v1.Node",
		reflect.TypeFor[*corev1.Pod](): "io.k8s.api.core.v1.Pod",
	} {
		if got := Name(typ); got != want {
			t.Errorf("Name(%v) = %s, want %s", typ, got, want)
		}
	}
}

func TestAKindOnceAndATypeWithoutKind(t *testing.T) {
	status := schema.GroupVersionKind{Version: "v1", Kind: "Status"}
	s := Schemas(
		Kind{GVK: status, Object: metav1.Status{}},
		Kind{GVK: status, Object: metav1.Status{}},
		Kind{GVK: schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Status"}, Object: metav1.Status{}},
		Kind{Object: metav1.Patch{}},
	)
	gvk, _ := s["io.k8s.apimachinery.pkg.apis.meta.v1.Status"]["x-kubernetes-group-version-kind"].([]map[string]string)
	if len(gvk) != 2 || gvk[0]["group"] != "" || gvk[1]["group"] != "policy" {
		t.Errorf("Status's GVKs %v, want v1 and policy/v1 once each", gvk)
	}
	patch := s["io.k8s.apimachinery.pkg.apis.meta.v1.Patch"]
	if patch == nil {
		t.Fatal("no Patch schema")
	}
	if _, ok := patch["x-kubernetes-group-version-kind"]; ok {
		t.Errorf("Patch, which is no kind, has a GVK: %v", patch)
	}
	if !strings.HasPrefix(patch["description"].(string), "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.") {
		t.Errorf("Patch's description %q", patch["description"])
	}
}

func TestMetricsSchemasAreDocumented(t *testing.T) {
	s := Schemas(Kind{GVK: metricsv1beta1.SchemeGroupVersion.WithKind("PodMetrics"), Object: metricsv1beta1.PodMetrics{}})
	pod := s["io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics"]
	if d, _ := pod["description"].(string); d != "PodMetrics sets resource usage metrics of a pod." {
		t.Errorf("PodMetrics' description %q", d)
	}
	props := pod["properties"].(map[string]Schema)
	if d, _ := props["window"]["description"].(string); !strings.Contains(d, "[Timestamp-Window, Timestamp]") {
		t.Errorf("window's description %q", d)
	}
	container := s["io.k8s.metrics.pkg.apis.metrics.v1beta1.ContainerMetrics"]
	if d, _ := container["properties"].(map[string]Schema)["usage"]["description"].(string); d != "The memory usage is the memory working set." {
		t.Errorf("containers[].usage's description %q", d)
	}
}

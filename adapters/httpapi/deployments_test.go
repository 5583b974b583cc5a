package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
)

const deployPath = "/apis/apps/v1/namespaces/default/deployments"

// deployJSON is a Deployment of web pods that says nothing of replicas,
// strategy, history or deadline: kubectl create deployment's body.
const deployJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},` +
	`"spec":{"selector":{"matchLabels":{"app":"web"}},"strategy":{},"template":{"metadata":{"labels":{"app":"web"}},` +
	`"spec":{"containers":[{"name":"nginx","image":"nginx:1"}]}}}}`

// TestDeploymentDefaultsAndRefusals: a Deployment is created with
// apps/v1's defaults, shown as kubectl get deploy shows it, patched as
// kubectl set image and rollout pause do, and what kube-apiserver refuses
// is refused, appending nothing.
func TestDeploymentDefaultsAndRefusals(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	var d appsv1.Deployment
	a := mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: deployPath + "?fieldValidation=Strict", body: deployJSON})
	if err := json.Unmarshal(a.body, &d); err != nil {
		t.Fatal(err)
	}
	ru := d.Spec.Strategy.RollingUpdate
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil ||
		*ru.MaxSurge != intstr.FromString("25%") || *ru.MaxUnavailable != intstr.FromString("25%") ||
		*d.Spec.RevisionHistoryLimit != 10 || *d.Spec.ProgressDeadlineSeconds != 600 || d.UID == "" {
		t.Fatalf("created with defaults %+v", d.Spec)
	}
	// kubectl set image: a strategic merge patch of the container by name.
	a = mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: deployPath + "/web", contentType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:2"}]}}}}`})
	if err := json.Unmarshal(a.body, &d); err != nil || d.Spec.Template.Spec.Containers[0].Image != "nginx:2" || d.Generation != 2 {
		t.Fatalf("set image: %s", a.body)
	}
	// kubectl rollout pause.
	a = mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: deployPath + "/web", contentType: strategicPatch, body: `{"spec":{"paused":true}}`})
	if err := json.Unmarshal(a.body, &d); err != nil || !d.Spec.Paused {
		t.Fatalf("pause: %s", a.body)
	}
	r, _ := http.NewRequestWithContext(t.Context(), "GET", base+deployPath, nil)
	r.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tbl metav1.Table
	if err := json.NewDecoder(resp.Body).Decode(&tbl); err != nil || len(tbl.Rows) != 1 {
		t.Fatalf("table: %+v, %v", tbl, err)
	}
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		if c.Priority == 0 {
			cols = append(cols, c.Name)
		}
	}
	if got := strings.Join(cols, ","); got != "Name,Ready,Up-to-date,Available,Age" {
		t.Errorf("columns %s", got)
	}

	head := api.head(t)
	for _, tt := range []struct {
		name string
		rq   req
		code int
		want string
	}{
		{"Recreate with a rolling update", req{method: "POST", path: deployPath,
			body: strings.Replace(strings.Replace(deployJSON, `"strategy":{}`, `"strategy":{"type":"Recreate","rollingUpdate":{"maxSurge":1}}`, 1), `"name":"web"`, `"name":"x"`, 1)},
			http.StatusUnprocessableEntity, "spec.strategy.rollingUpdate"},
		{"a surge that is no percentage", req{method: "PATCH", path: deployPath + "/web", contentType: mergePatch,
			body: `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"lots"}}}}`}, http.StatusUnprocessableEntity, "spec.strategy.rollingUpdate.maxSurge"},
		{"neither surge nor unavailability", req{method: "PATCH", path: deployPath + "/web", contentType: mergePatch,
			body: `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":"0%"}}}}`}, http.StatusUnprocessableEntity, "may not be 0 when `maxSurge` is 0"},
		{"a new selector", req{method: "PATCH", path: deployPath + "/web", contentType: mergePatch,
			body: `{"spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}}}}}`},
			http.StatusUnprocessableEntity, "spec.selector"},
		{"an unknown field, strictly", req{method: "POST", path: deployPath + "?fieldValidation=Strict",
			body: strings.Replace(deployJSON, `"strategy":{}`, `"strategy":{},"surge":3`, 1)}, http.StatusBadRequest, "surge"},
		{"no such Deployment to scale", req{method: "PATCH", path: deployPath + "/gone/scale", contentType: mergePatch, body: `{"spec":{"replicas":1}}`},
			http.StatusNotFound, `deployments.apps "gone" not found`},
		{"an unknown propagation policy", req{method: "DELETE", path: deployPath + "/web", contentType: "application/json",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Sideways"}`}, http.StatusUnprocessableEntity, `propagationPolicy: Unsupported value: "Sideways"`},
		{"orphanDependents with a policy", req{method: "DELETE", path: deployPath + "/web", contentType: "application/json",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan","orphanDependents":true}`}, http.StatusUnprocessableEntity, "orphanDependents"},
	} {
		t.Run(tt.name, func(t *testing.T) { refusedLeavingTheLog(t, api, base, tt.code, tt.rq, tt.want, head) })
	}
}

// TestDeploymentsThroughClientGo: client-go's typed clientset, with its
// default configuration (protobuf), creates (one owned by another
// object, its owner kept), lists, watches, scales, patches (kubectl
// rollout restart's patch) and deletes Deployments.
func TestDeploymentsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	cs, sent := recordingClientset(t, api.serve(t).URL, func(r *http.Request) bool { return r.Method != http.MethodPatch })
	ctx := t.Context()
	ds := cs.AppsV1().Deployments("default")
	three := int32(3)
	labels := map[string]string{"app": "web"}
	created, err := ds.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels, OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "shop", UID: "cm-shop"}}},
		Spec: appsv1.DeploymentSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}},
	}, metav1.CreateOptions{})
	if err != nil || created.Spec.Strategy.RollingUpdate != nil || *created.Spec.Replicas != 3 {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := ds.List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if o := list.Items[0].OwnerReferences; len(o) != 1 || o[0].UID != "cm-shop" || o[0].Kind != "ConfigMap" {
		t.Errorf("the Deployment listed has owners %+v, want the ConfigMap it was created with", o)
	}
	w, err := ds.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, FieldSelector: "metadata.name=web"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	scale, err := ds.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 3 || scale.Status.Selector != "app=web" {
		t.Fatalf("get scale: %+v, %v", scale, err)
	}
	scale.Spec.Replicas = 5
	if _, err := ds.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		d, ok := ev.Object.(*appsv1.Deployment)
		if ev.Type != watch.Modified || !ok || *d.Spec.Replicas != 5 {
			t.Errorf("watched %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch saw no scale")
	}
	restart := `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-27T03:00:00Z"}}}}}`
	got, err := ds.Patch(ctx, "web", types.StrategicMergePatchType, []byte(restart), metav1.PatchOptions{})
	if err != nil || got.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" || got.Generation != 3 {
		t.Fatalf("restart patch: %+v, %v", got, err)
	}
	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if err := ds.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want not found", err)
	}
}

package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
)

const statefulSetPath = "/apis/apps/v1/namespaces/default/statefulsets"

// statefulSetJSON is a StatefulSet as kubectl apply posts it, with
// nothing of apps/v1's defaults given.
const statefulSetJSON = `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"web"},"spec":{"replicas":3,"serviceName":"web",` +
	`"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`

// decodeStatefulSet reads an answer as a StatefulSet.
var decodeStatefulSet = decodeInto[appsv1.StatefulSet]

// TestStatefulSetLifecycle: a StatefulSet is created with apps/v1's
// defaults, scaled through its scale subresource, its image patched (a
// new generation), its status written, shown as kubectl get statefulsets
// shows it, and deleted, over JSON.
func TestStatefulSetLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeStatefulSet(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: statefulSetPath + "?fieldValidation=Strict", body: statefulSetJSON}))
	if created.Spec.PodManagementPolicy != appsv1.OrderedReadyPodManagement || created.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType ||
		created.Spec.UpdateStrategy.RollingUpdate == nil || *created.Spec.UpdateStrategy.RollingUpdate.Partition != 0 ||
		*created.Spec.RevisionHistoryLimit != 10 || *created.Spec.Replicas != 3 || created.UID == "" || created.Generation != 1 {
		t.Fatalf("created %+v", created.Spec)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: statefulSetPath, body: statefulSetJSON})

	var scale autoscalingv1.Scale
	a := mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: statefulSetPath + "/web/scale", contentType: mergePatch, body: `{"spec":{"replicas":5}}`})
	if err := json.Unmarshal(a.body, &scale); err != nil || scale.Spec.Replicas != 5 || scale.Status.Selector != "app=web" {
		t.Fatalf("scale %s: %v", a.body, err)
	}
	patched := decodeStatefulSet(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: statefulSetPath + "/web", contentType: mergePatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`}))
	if patched.Spec.Template.Spec.Containers[0].Image != "nginx:2" || *patched.Spec.Replicas != 5 || patched.Generation != 3 {
		t.Errorf("patched %+v (generation %d)", patched.Spec, patched.Generation)
	}
	api.clock.Step(time.Minute)
	patched.Status = appsv1.StatefulSetStatus{Replicas: 5, ReadyReplicas: 4, ObservedGeneration: 3, UpdateRevision: "web-x", CurrentRevision: "web-y"}
	body, _ := json.Marshal(patched)
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: statefulSetPath + "/web/status", body: string(body)})

	tbl := tableOf(t, base, statefulSetPath)
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	want := []any{"web", "4/5", "60s", "web", "nginx:2"}
	if strings.Join(cols, ",") != "Name,Ready,Age,Containers,Images" || len(tbl.Rows) != 1 || !equalCells(tbl.Rows[0].Cells, want) {
		t.Errorf("table %v %+v", cols, tbl.Rows)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: statefulSetPath + "/web"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: statefulSetPath + "/web"})
}

// TestStatefulSetRefusalsNameTheField: what kube-apiserver refuses of a
// StatefulSet — a selector its template does not match, an unknown
// policy, a negative partition, a change of the selector or of the
// service name — and what herd cannot do (volume claim templates) are
// refused naming the field, and append nothing.
func TestStatefulSetRefusalsNameTheField(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: statefulSetPath, body: statefulSetJSON})
	head := api.head(t)
	other := func(from, to string) string {
		return strings.Replace(strings.Replace(statefulSetJSON, `"metadata":{"name":"web"}`, `"metadata":{"name":"other"}`, 1), from, to, 1)
	}
	for _, tt := range []struct {
		name string
		rq   req
		want string
	}{
		{"a selector the template does not match", req{method: "POST", path: statefulSetPath, body: other(`"labels":{"app":"web"}`, `"labels":{"app":"db"}`)}, "spec.template.metadata.labels"},
		{"no selector", req{method: "POST", path: statefulSetPath, body: other(`"selector":{"matchLabels":{"app":"web"}},`, ``)}, "spec.selector"},
		{"an unknown policy", req{method: "POST", path: statefulSetPath, body: other(`"serviceName"`, `"podManagementPolicy":"Sometimes","serviceName"`)}, `spec.podManagementPolicy: Unsupported value: "Sometimes"`},
		{"a negative partition", req{method: "POST", path: statefulSetPath, body: other(`"serviceName"`, `"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":-1}},"serviceName"`)}, "spec.updateStrategy.rollingUpdate.partition"},
		{"no pod ever unavailable", req{method: "POST", path: statefulSetPath, body: other(`"serviceName"`, `"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0}},"serviceName"`)}, `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "0": cannot be 0`},
		{"more than every pod unavailable", req{method: "POST", path: statefulSetPath, body: other(`"serviceName"`, `"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"150%"}},"serviceName"`)}, "spec.updateStrategy.rollingUpdate.maxUnavailable"},
		{"an unreadable maxUnavailable", req{method: "POST", path: statefulSetPath, body: other(`"serviceName"`, `"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"half"}},"serviceName"`)}, "spec.updateStrategy.rollingUpdate.maxUnavailable"},
		{"maxUnavailable on delete", req{method: "POST", path: statefulSetPath, body: other(`"serviceName"`, `"updateStrategy":{"type":"OnDelete","rollingUpdate":{"maxUnavailable":2}},"serviceName"`)}, "spec.updateStrategy.rollingUpdate"},
		{"pods that end", req{method: "POST", path: statefulSetPath, body: other(`"containers"`, `"restartPolicy":"Never","containers"`)}, "spec.template.spec.restartPolicy"},
		{"volume claims", req{method: "POST", path: statefulSetPath, body: other(`"serviceName"`, `"volumeClaimTemplates":[{"metadata":{"name":"data"}}],"serviceName"`)}, "spec.volumeClaimTemplates"},
		{"a negative scale", req{method: "PATCH", path: statefulSetPath + "/web/scale", contentType: mergePatch, body: `{"spec":{"replicas":-1}}`}, "spec.replicas"},
		{"a new selector", req{method: "PATCH", path: statefulSetPath + "/web", contentType: mergePatch,
			body: `{"spec":{"selector":{"matchLabels":{"tier":"a"}},"template":{"metadata":{"labels":{"tier":"a"}}}}}`}, "spec: Forbidden"},
		{"a new service name", req{method: "PATCH", path: statefulSetPath + "/web", contentType: mergePatch, body: `{"spec":{"serviceName":"db"}}`}, "spec: Forbidden"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refusedLeavingTheLog(t, api, base, http.StatusUnprocessableEntity, tt.rq, tt.want, head)
		})
	}
}

// TestStatefulSetsThroughClientGo: client-go's typed clientset, in its
// default configuration (protobuf), creates, lists, watches, updates,
// scales and deletes StatefulSets.
func TestStatefulSetsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	cs, sent := recordingClientset(t, api.serve(t).URL, nil)
	ctx := t.Context()
	sts := cs.AppsV1().StatefulSets("default")
	replicas := int32(2)
	in := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Labels: map[string]string{"app": "db"}},
		Spec: appsv1.StatefulSetSpec{Replicas: &replicas, ServiceName: "db", PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "postgres:15"}}}}},
	}
	created, err := sts.Create(ctx, in, metav1.CreateOptions{})
	if err != nil || created.Spec.PodManagementPolicy != appsv1.ParallelPodManagement || *created.Spec.Replicas != 2 {
		t.Fatalf("create: %+v, %v", created, err)
	}
	// apps/v1's default: one replica unavailable at a time.
	if ru := created.Spec.UpdateStrategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.String() != "1" {
		t.Errorf("created with the rolling update %+v, want maxUnavailable defaulted to 1", ru)
	}
	half := intstr.FromString("50%")
	created.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &half
	list, err := sts.List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	w, err := sts.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created.Spec.Template.Spec.Containers[0].Image = "postgres:16"
	updated, err := sts.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.Spec.Template.Spec.Containers[0].Image != "postgres:16" || updated.Generation != 2 {
		t.Fatalf("update: %+v, %v", updated, err)
	}
	if ru := updated.Spec.UpdateStrategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.String() != "50%" {
		t.Errorf("updated with the rolling update %+v, want maxUnavailable 50%%", ru)
	}
	select {
	case ev := <-w.ResultChan():
		s, ok := ev.Object.(*appsv1.StatefulSet)
		if ev.Type != watch.Modified || !ok || s.Spec.Template.Spec.Containers[0].Image != "postgres:16" {
			t.Errorf("watched %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch saw no update")
	}
	sc, err := sts.GetScale(ctx, "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 4
	if sc, err = sts.UpdateScale(ctx, "db", sc, metav1.UpdateOptions{}); err != nil || sc.Spec.Replicas != 4 {
		t.Fatalf("scale: %+v, %v", sc, err)
	}
	bad := in.DeepCopy()
	bad.Name, bad.Spec.Template.Labels = "bad", map[string]string{"app": "other"}
	if _, err := sts.Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.template.metadata.labels") {
		t.Errorf("a selector that matches nothing: %v, want it refused naming spec.template.metadata.labels", err)
	}
	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if err := sts.Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

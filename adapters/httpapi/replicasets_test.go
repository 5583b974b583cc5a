package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

const rsPath = "/apis/apps/v1/namespaces/default/replicasets"

// rsJSON is a ReplicaSet of web pods that names no number of replicas.
const rsJSON = `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web","labels":{"app":"web"}},` +
	`"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},` +
	`"spec":{"containers":[{"name":"app","image":"nginx:1"}]}}}}`

// decodeRS reads an answer as a ReplicaSet.
var decodeRS = decodeInto[appsv1.ReplicaSet]

// TestReplicaSetLifecycle: a ReplicaSet is created with Kubernetes'
// defaults, read, replaced, patched (merge and strategic), scaled through
// its scale subresource, given a status, shown as kubectl get rs shows
// it, and deleted, over JSON.
func TestReplicaSetLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeRS(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: rsPath + "?fieldValidation=Strict", body: rsJSON}))
	if *created.Spec.Replicas != 1 || created.UID == "" || created.Generation != 1 || created.ResourceVersion != strconv.FormatInt(api.head(t), 10) ||
		*created.Spec.Template.Spec.TerminationGracePeriodSeconds != 30 || !created.CreationTimestamp.Equal(&metaT0) {
		t.Fatalf("created %+v", created)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: rsPath, body: rsJSON})

	created.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	body, _ := json.Marshal(created)
	replaced := decodeRS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: rsPath + "/web", body: string(body)}))
	if replaced.Generation != 2 || replaced.Spec.Template.Spec.Containers[0].Image != "nginx:2" {
		t.Errorf("replaced: generation %d, %+v", replaced.Generation, replaced.Spec.Template.Spec.Containers)
	}

	merged := decodeRS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: rsPath + "/web", contentType: mergePatch,
		body: `{"metadata":{"labels":{"tier":"front"}},"spec":{"replicas":2}}`}))
	if *merged.Spec.Replicas != 2 || merged.Labels["tier"] != "front" || merged.Generation != 3 {
		t.Errorf("merge patch: replicas %d, labels %v, generation %d", *merged.Spec.Replicas, merged.Labels, merged.Generation)
	}
	// A strategic merge patch merges containers by name: the one it
	// names is added (first, as Kubernetes merges), the other kept.
	strategic := decodeRS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: rsPath + "/web", contentType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}`}))
	images := map[string]string{}
	for _, c := range strategic.Spec.Template.Spec.Containers {
		images[c.Name] = c.Image
	}
	if len(images) != 2 || images["app"] != "nginx:2" || images["sidecar"] != "busybox" {
		t.Errorf("strategic merge patch: containers %v", images)
	}

	var scale autoscalingv1.Scale
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: rsPath + "/web/scale"}).body, &scale); err != nil {
		t.Fatal(err)
	}
	if scale.Kind != "Scale" || scale.APIVersion != "autoscaling/v1" || scale.Spec.Replicas != 2 || scale.Status.Selector != "app=web" {
		t.Errorf("scale %+v", scale)
	}
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: rsPath + "/web/scale", contentType: mergePatch,
		body: `{"spec":{"replicas":5}}`}).body, &scale); err != nil || scale.Spec.Replicas != 5 {
		t.Errorf("scale patched to %+v, %v", scale, err)
	}

	api.clock.Step(time.Minute)
	status := decodeRS(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: rsPath + "/web"}))
	status.Status = appsv1.ReplicaSetStatus{Replicas: 5, ReadyReplicas: 4, AvailableReplicas: 4, FullyLabeledReplicas: 5, ObservedGeneration: status.Generation}
	body, _ = json.Marshal(status)
	if got := decodeRS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: rsPath + "/web/status", body: string(body)})); !equality.Semantic.DeepEqual(got.Status, status.Status) {
		t.Errorf("status %+v, want %+v", got.Status, status.Status)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "PUT", path: rsPath + "/web/status", body: string(body)})

	tbl := tableOf(t, base, rsPath)
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	want := []any{"web", float64(5), float64(5), float64(4), "60s", "sidecar,app", "busybox,nginx:2", "app=web"}
	if strings.Join(cols, ",") != "Name,Desired,Current,Ready,Age,Containers,Images,Selector" || len(tbl.Rows) != 1 || !equalCells(tbl.Rows[0].Cells, want) {
		t.Errorf("table %v %+v", cols, tbl.Rows)
	}

	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: rsPath + "/web"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: rsPath + "/web"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: rsPath + "/web/scale"})
}

func equalCells(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// TestReplicaSetRefusalsAppendNothing: what kube-apiserver refuses of a
// ReplicaSet herd refuses in its words — a new selector, a template its
// selector does not select, a stale resourceVersion, a restart policy a
// ReplicaSet cannot keep, fewer than no replicas — and the log does not
// move.
func TestReplicaSetRefusalsAppendNothing(t *testing.T) {
	f := changedObject(t, rsPath, "web", rsJSON, `{"spec":{"replicas":2}}`)
	f.refuse(t, []refusal{
		{"a new selector", req{method: "PATCH", path: rsPath + "/web", contentType: mergePatch,
			body: `{"spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}}}}}`},
			http.StatusUnprocessableEntity, "spec.selector"},
		{"a template its selector does not select", req{method: "POST", path: rsPath,
			body: strings.Replace(strings.Replace(rsJSON, `"name":"web"`, `"name":"other"`, 1), `"metadata":{"labels":{"app":"web"}},"spec":{"containers"`, `"metadata":{"labels":{"app":"api"}},"spec":{"containers"`, 1)},
			http.StatusUnprocessableEntity, "spec.template.metadata.labels"},
		{"a stale resourceVersion", req{method: "PUT", path: rsPath + "/web", body: string(f.stale)}, http.StatusConflict, "the object has been modified"},
		{"a stale scale", req{method: "PUT", path: rsPath + "/web/scale",
			body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default","resourceVersion":"` + f.staleVersion + `"},"spec":{"replicas":3}}`},
			http.StatusConflict, "the object has been modified"},
		{"fewer than no replicas", req{method: "PATCH", path: rsPath + "/web/scale", contentType: mergePatch, body: `{"spec":{"replicas":-1}}`},
			http.StatusUnprocessableEntity, "spec.replicas"},
		{"a restart policy other than Always", req{method: "PATCH", path: rsPath + "/web", contentType: mergePatch,
			body: `{"spec":{"template":{"spec":{"restartPolicy":"Never"}}}}`}, http.StatusUnprocessableEntity, "spec.template.spec.restartPolicy"},
		{"no such ReplicaSet to scale", req{method: "PATCH", path: rsPath + "/gone/scale", contentType: mergePatch, body: `{"spec":{"replicas":1}}`},
			http.StatusNotFound, `replicasets.apps "gone" not found`},
	})
}

// TestReplicaSetsThroughClientGo: client-go's typed clientset, with its
// default configuration (protobuf), creates, reads, lists, scales,
// watches and deletes ReplicaSets.
func TestReplicaSetsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	// The media types client-go sent bodies in, as the server saw them.
	cs, sent := recordingClientset(t, api.serve(t).URL, nil)
	ctx := t.Context()
	rss := cs.AppsV1().ReplicaSets("default")
	three := int32(3)
	labels := map[string]string{"app": "web"}
	in := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels},
		Spec: appsv1.ReplicaSetSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}},
	}
	created, err := rss.Create(ctx, in, metav1.CreateOptions{})
	if err != nil || *created.Spec.Replicas != 3 || created.UID == "" {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := rss.List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(list.Items) != 1 || list.ResourceVersion != created.ResourceVersion {
		t.Fatalf("list: %+v, %v", list, err)
	}
	w, err := rss.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	scale, err := rss.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 3 || scale.Status.Selector != "app=web" {
		t.Fatalf("get scale: %+v, %v", scale, err)
	}
	scale.Spec.Replicas = 7
	if scale, err = rss.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil || scale.Spec.Replicas != 7 {
		t.Fatalf("update scale: %+v, %v", scale, err)
	}
	// The Scale's resourceVersion is a precondition: the one before is
	// stale now.
	scale.ResourceVersion = created.ResourceVersion
	if _, err := rss.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("a stale scale: %v, want a conflict", err)
	}
	got, err := rss.Get(ctx, "web", metav1.GetOptions{})
	if err != nil || *got.Spec.Replicas != 7 || got.Generation != 2 {
		t.Fatalf("get after the scale: %+v, %v", got, err)
	}
	select {
	case ev := <-w.ResultChan():
		rs, ok := ev.Object.(*appsv1.ReplicaSet)
		if ev.Type != watch.Modified || !ok || *rs.Spec.Replicas != 7 || rs.ResourceVersion != got.ResourceVersion {
			t.Errorf("watched %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch saw no scale")
	}

	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if len(sent()) < 3 {
		t.Errorf("client-go sent %d bodies, want the create and the two scales", len(sent()))
	}

	if err := rss.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rss.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want not found", err)
	}
}

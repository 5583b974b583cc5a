package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
)

const dsPath = "/apis/apps/v1/namespaces/default/daemonsets"

// dsJSON is a DaemonSet of log collectors on linux nodes that names no
// update strategy.
const dsJSON = `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"logs","labels":{"app":"logs"}},` +
	`"spec":{"selector":{"matchLabels":{"app":"logs"}},"template":{"metadata":{"labels":{"app":"logs"}},` +
	`"spec":{"nodeSelector":{"herd.dev/kind":"linux"},"containers":[{"name":"fluent","image":"fluent-bit:3"}]}}}}`

// decodeDS reads an answer as a DaemonSet.
var decodeDS = decodeInto[appsv1.DaemonSet]

// TestDaemonSetLifecycle: a DaemonSet is created with apps/v1's defaults,
// read, replaced, patched (merge and strategic), given a status, shown
// as kubectl get ds shows it, read in CBOR, and deleted, over JSON.
func TestDaemonSetLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeDS(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: dsPath + "?fieldValidation=Strict", body: dsJSON}))
	ru := created.Spec.UpdateStrategy.RollingUpdate
	if created.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || ru == nil || ru.MaxUnavailable.String() != "1" || ru.MaxSurge.String() != "0" ||
		*created.Spec.RevisionHistoryLimit != 10 || created.UID == "" || created.Generation != 1 || created.Annotations[appsv1.DeprecatedTemplateGeneration] != "1" ||
		created.ResourceVersion != strconv.FormatInt(api.head(t), 10) || *created.Spec.Template.Spec.TerminationGracePeriodSeconds != 30 {
		t.Fatalf("created %+v", created)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: dsPath, body: dsJSON})

	// A replace that echoes the template generation back cannot set it.
	created.Spec.Template.Spec.Containers[0].Image = "fluent-bit:4"
	created.Annotations[appsv1.DeprecatedTemplateGeneration] = "7"
	body, _ := json.Marshal(created)
	replaced := decodeDS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: dsPath + "/logs", body: string(body)}))
	if replaced.Generation != 2 || replaced.Annotations[appsv1.DeprecatedTemplateGeneration] != "2" || replaced.Spec.Template.Spec.Containers[0].Image != "fluent-bit:4" {
		t.Errorf("replaced: generation %d, annotations %v, %+v", replaced.Generation, replaced.Annotations, replaced.Spec.Template.Spec.Containers)
	}

	merged := decodeDS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: dsPath + "/logs", contentType: mergePatch,
		body: `{"metadata":{"labels":{"tier":"node"}},"spec":{"minReadySeconds":5,"updateStrategy":{"rollingUpdate":{"maxUnavailable":"25%"}}}}`}))
	if merged.Spec.MinReadySeconds != 5 || merged.Labels["tier"] != "node" || merged.Generation != 3 || merged.Annotations[appsv1.DeprecatedTemplateGeneration] != "2" ||
		merged.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.String() != "25%" {
		t.Errorf("merge patch: %+v, labels %v, generation %d", merged.Spec, merged.Labels, merged.Generation)
	}
	strategic := decodeDS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: dsPath + "/logs", contentType: strategicPatch,
		body: `{"spec":{"template":{"spec":{"containers":[{"name":"exporter","image":"node-exporter"}]}}}}`}))
	if n := len(strategic.Spec.Template.Spec.Containers); n != 2 || strategic.Annotations[appsv1.DeprecatedTemplateGeneration] != "3" {
		t.Errorf("strategic merge patch: %d containers, annotations %v", n, strategic.Annotations)
	}

	api.clock.Step(time.Minute)
	status := decodeDS(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: dsPath + "/logs"}))
	status.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 1,
		NumberAvailable: 2, NumberUnavailable: 1, ObservedGeneration: status.Generation}
	body, _ = json.Marshal(status)
	if got := decodeDS(t, mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: dsPath + "/logs/status", body: string(body)})); !equality.Semantic.DeepEqual(got.Status, status.Status) {
		t.Errorf("status %+v, want %+v", got.Status, status.Status)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "PUT", path: dsPath + "/logs/status", body: string(body)})

	tbl := tableOf(t, base, dsPath)
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	want := []any{"logs", float64(3), float64(3), float64(2), float64(1), float64(2), "herd.dev/kind=linux", "60s",
		"exporter,fluent", "node-exporter,fluent-bit:4", "app=logs"}
	if strings.Join(cols, ",") != "Name,Desired,Current,Ready,Up-to-date,Available,Node Selector,Age,Containers,Images,Selector" ||
		len(tbl.Rows) != 1 || !equalCells(tbl.Rows[0].Cells, want) {
		t.Errorf("table %v %+v", cols, tbl.Rows)
	}

	r, _ := http.NewRequestWithContext(t.Context(), "GET", base+dsPath+"/logs", nil)
	r.Header.Set("Accept", runtime.ContentTypeCBOR)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	obj, err := runtime.Decode(codecs.UniversalDeserializer(), raw)
	if ds, ok := obj.(*appsv1.DaemonSet); err != nil || !ok || ds.Status.NumberReady != 2 || resp.Header.Get("Content-Type") != runtime.ContentTypeCBOR {
		t.Errorf("in CBOR: %T %v (%s)", obj, err, resp.Header.Get("Content-Type"))
	}

	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: dsPath + "/logs"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: dsPath + "/logs"})
	// ControllerRevisions are served: a DaemonSet keeps none, so kubectl
	// rollout history of one finds an empty list rather than a refusal.
	mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/apis/apps/v1/namespaces/default/controllerrevisions"})
}

// TestDaemonSetRefusalsAppendNothing: what kube-apiserver refuses of a
// DaemonSet herd refuses in its words — a new selector, a template its
// selector does not select, a stale resourceVersion, both rolling
// bounds set or both zero, a restart policy a DaemonSet cannot keep —
// and so does herd a required node affinity it would not honour; the
// log does not move.
func TestDaemonSetRefusalsAppendNothing(t *testing.T) {
	f := changedObject(t, dsPath, "logs", dsJSON, `{"spec":{"minReadySeconds":3}}`)
	f.refuse(t, []refusal{
		{"a new selector", req{method: "PATCH", path: dsPath + "/logs", contentType: mergePatch,
			body: `{"spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}}}}}`},
			http.StatusUnprocessableEntity, "spec.selector"},
		{"a template its selector does not select", req{method: "POST", path: dsPath,
			body: strings.Replace(strings.Replace(dsJSON, `"name":"logs"`, `"name":"other"`, 1), `"metadata":{"labels":{"app":"logs"}},"spec":{"nodeSelector"`, `"metadata":{"labels":{"app":"x"}},"spec":{"nodeSelector"`, 1)},
			http.StatusUnprocessableEntity, "spec.template.metadata.labels"},
		{"a stale resourceVersion", req{method: "PUT", path: dsPath + "/logs", body: string(f.stale)}, http.StatusConflict, "the object has been modified"},
		{"both bounds", req{method: "PATCH", path: dsPath + "/logs", contentType: mergePatch,
			body: `{"spec":{"updateStrategy":{"rollingUpdate":{"maxSurge":1}}}}`}, http.StatusUnprocessableEntity, "spec.updateStrategy.rollingUpdate.maxSurge"},
		{"no bound", req{method: "PATCH", path: dsPath + "/logs", contentType: mergePatch,
			body: `{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":0}}}}`}, http.StatusUnprocessableEntity, "cannot be 0 when maxSurge is 0"},
		{"an unknown strategy", req{method: "PATCH", path: dsPath + "/logs", contentType: mergePatch,
			body: `{"spec":{"updateStrategy":{"type":"Recreate"}}}`}, http.StatusUnprocessableEntity, "spec.updateStrategy.type"},
		{"a restart policy other than Always", req{method: "PATCH", path: dsPath + "/logs", contentType: mergePatch,
			body: `{"spec":{"template":{"spec":{"restartPolicy":"OnFailure"}}}}`}, http.StatusUnprocessableEntity, "spec.template.spec.restartPolicy"},
		{"a required node affinity", req{method: "PATCH", path: dsPath + "/logs", contentType: mergePatch,
			body: `{"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}]}}}}}}}`},
			http.StatusUnprocessableEntity, "nodeSelector"},
		{"an unknown field, strictly", req{method: "POST", path: dsPath + "?fieldValidation=Strict",
			body: strings.Replace(dsJSON, `"selector"`, `"replicas":3,"selector"`, 1)}, http.StatusBadRequest, "replicas"},
		{"no such DaemonSet", req{method: "PATCH", path: dsPath + "/gone", contentType: mergePatch, body: `{"spec":{"minReadySeconds":1}}`},
			http.StatusNotFound, `daemonsets.apps "gone" not found`},
	})
}

// TestDaemonSetsThroughClientGo: client-go's typed clientset, with its
// default configuration (protobuf), creates, reads, lists, watches,
// updates, writes the status of and deletes DaemonSets, and finds them
// by their short name's resource in discovery.
func TestDaemonSetsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	cs, sent := recordingClientset(t, api.serve(t).URL, nil)
	ctx := t.Context()
	dss := cs.AppsV1().DaemonSets("default")
	labels := map[string]string{"app": "logs"}
	surge := intstr.FromString("10%")
	none := intstr.FromInt32(0)
	in := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "logs", Labels: labels},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "fluent", Image: "fluent-bit"}}}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &none, MaxSurge: &surge}}},
	}
	created, err := dss.Create(ctx, in, metav1.CreateOptions{})
	if err != nil || created.UID == "" || created.Spec.UpdateStrategy.RollingUpdate.MaxSurge.String() != "10%" {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := dss.List(ctx, metav1.ListOptions{LabelSelector: "app=logs"})
	if err != nil || len(list.Items) != 1 || list.ResourceVersion != created.ResourceVersion {
		t.Fatalf("list: %+v, %v", list, err)
	}
	w, err := dss.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	created.Spec.Template.Spec.Containers[0].Image = "fluent-bit:4"
	updated, err := dss.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.Generation != 2 || updated.Annotations[appsv1.DeprecatedTemplateGeneration] != "2" {
		t.Fatalf("update: %+v, %v", updated, err)
	}
	if _, err := dss.Update(ctx, created, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("an update at a stale resourceVersion: %v, want a conflict", err)
	}
	updated.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, ObservedGeneration: 2}
	withStatus, err := dss.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil || withStatus.Status.DesiredNumberScheduled != 2 || withStatus.Generation != 2 {
		t.Fatalf("update status: %+v, %v", withStatus, err)
	}
	for _, want := range []string{"fluent-bit:4", ""} {
		select {
		case ev := <-w.ResultChan():
			ds, ok := ev.Object.(*appsv1.DaemonSet)
			if ev.Type != watch.Modified || !ok || want != "" && ds.Spec.Template.Spec.Containers[0].Image != want {
				t.Errorf("watched %s %+v", ev.Type, ev.Object)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the watch saw no change")
		}
	}

	resources, err := cs.Discovery().ServerResourcesForGroupVersion("apps/v1")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range resources.APIResources {
		if r.Name == "daemonsets" {
			found = r.Kind == "DaemonSet" && r.Namespaced && strings.Join(r.ShortNames, ",") == "ds" && strings.Join(r.Categories, ",") == "all"
		}
	}
	if !found {
		t.Errorf("discovery of apps/v1: %+v", resources.APIResources)
	}

	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if len(sent()) < 4 {
		t.Errorf("client-go sent %d bodies, want the create, two updates and the status", len(sent()))
	}
	if err := dss.Delete(ctx, "logs", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dss.Get(ctx, "logs", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want not found", err)
	}
}

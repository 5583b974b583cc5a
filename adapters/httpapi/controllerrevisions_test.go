package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

const controllerRevisionPath = "/apis/apps/v1/namespaces/default/controllerrevisions"

// controllerRevisionJSON is a StatefulSet's revision as a controller posts
// it.
const controllerRevisionJSON = `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"web-abc","labels":{"app":"web","controller.kubernetes.io/hash":"abc"},` +
	`"ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"sts-uid","controller":true}]},` +
	`"data":{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}},"revision":1}`

// decodeControllerRevision reads an answer as a ControllerRevision.
var decodeControllerRevision = decodeInto[appsv1.ControllerRevision]

// TestControllerRevisionLifecycle: a revision is created with its data
// kept as sent, listed by label, renumbered by a patch (as Kubernetes'
// controller does when its template comes back), shown as kubectl get
// controllerrevisions shows it, and deleted, over JSON.
func TestControllerRevisionLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeControllerRevision(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: controllerRevisionPath + "?fieldValidation=Strict", body: controllerRevisionJSON}))
	if want := `{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}}`; string(created.Data.Raw) != want || created.Revision != 1 || created.UID == "" {
		t.Fatalf("created %s rev %d", created.Data.Raw, created.Revision)
	}
	mustSend(t, nil, base, http.StatusConflict, req{method: "POST", path: controllerRevisionPath, body: controllerRevisionJSON})
	var list appsv1.ControllerRevisionList
	a := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: controllerRevisionPath + "?labelSelector=app%3Dweb"})
	if err := json.Unmarshal(a.body, &list); err != nil || len(list.Items) != 1 {
		t.Fatalf("list by label: %s %v", a.body, err)
	}
	a = mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: controllerRevisionPath + "?labelSelector=app%3Ddb"})
	if err := json.Unmarshal(a.body, &list); err != nil || len(list.Items) != 0 {
		t.Fatalf("list by another label: %s %v", a.body, err)
	}
	renumbered := decodeControllerRevision(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: controllerRevisionPath + "/web-abc", contentType: mergePatch, body: `{"revision":3}`}))
	if renumbered.Revision != 3 || string(renumbered.Data.Raw) != string(created.Data.Raw) {
		t.Fatalf("renumbered %d %s", renumbered.Revision, renumbered.Data.Raw)
	}
	api.clock.Step(time.Minute)
	tbl := tableOf(t, base, controllerRevisionPath)
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	want := []any{"web-abc", "statefulset.apps/web", float64(3), "60s"}
	if strings.Join(cols, ",") != "Name,Controller,Revision,Age" || len(tbl.Rows) != 1 || !equalCells(tbl.Rows[0].Cells, want) {
		t.Errorf("table %v %+v", cols, tbl.Rows)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: controllerRevisionPath + "/web-abc"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: controllerRevisionPath + "/web-abc"})
}

// TestControllerRevisionRefusalsNameTheField: what kube-apiserver refuses
// of a ControllerRevision — no data, a negative revision, and any change
// of its data, by a PUT or any kind of PATCH — is refused naming the
// field, and appends nothing.
func TestControllerRevisionRefusalsNameTheField(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeControllerRevision(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: controllerRevisionPath, body: controllerRevisionJSON}))
	head := api.head(t)
	other := func(from, to string) string {
		return strings.Replace(strings.Replace(controllerRevisionJSON, `"name":"web-abc"`, `"name":"other"`, 1), from, to, 1)
	}
	changed := created.DeepCopy()
	changed.Data = runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`)}
	put, _ := json.Marshal(changed)
	for _, tt := range []struct {
		name string
		rq   req
		want string
	}{
		{"no data", req{method: "POST", path: controllerRevisionPath, body: other(`"data":{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"name":"web","image":"nginx:1"}]}}}},`, ``)}, "data: Required value"},
		{"a negative revision", req{method: "POST", path: controllerRevisionPath, body: other(`"revision":1`, `"revision":-1`)}, "revision"},
		{"new data by a PUT", req{method: "PUT", path: controllerRevisionPath + "/web-abc", body: string(put)}, "data: Invalid value: field is immutable"},
		{"new data by a merge patch", req{method: "PATCH", path: controllerRevisionPath + "/web-abc", contentType: mergePatch, body: `{"data":{"other":1}}`}, "data: Invalid value: field is immutable"},
		{"new data by a JSON patch", req{method: "PATCH", path: controllerRevisionPath + "/web-abc", contentType: jsonPatch, body: `[{"op":"replace","path":"/data","value":{"x":1}}]`}, "data: Invalid value: field is immutable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refusedLeavingTheLog(t, api, base, http.StatusUnprocessableEntity, tt.rq, tt.want, head)
		})
	}
}

// TestControllerRevisionsThroughClientGo: client-go's typed clientset, in
// its default configuration (protobuf), creates, lists by label, watches,
// renumbers and deletes ControllerRevisions; a change of data is refused
// as invalid.
func TestControllerRevisionsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	cs, sent := recordingClientset(t, api.serve(t).URL, nil)
	ctx := t.Context()
	revs := cs.AppsV1().ControllerRevisions("default")
	in := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "db-1", Labels: map[string]string{"app": "db"}},
		Data:       runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace"}}}`)},
		Revision:   1,
	}
	created, err := revs.Create(ctx, in, metav1.CreateOptions{})
	if err != nil || created.Revision != 1 || string(created.Data.Raw) != string(in.Data.Raw) {
		t.Fatalf("create: %+v, %v", created, err)
	}
	list, err := revs.List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
	if err != nil || len(list.Items) != 1 || string(list.Items[0].Data.Raw) != string(in.Data.Raw) {
		t.Fatalf("list: %+v, %v", list, err)
	}
	w, err := revs.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created.Revision = 2
	updated, err := revs.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.Revision != 2 {
		t.Fatalf("update: %+v, %v", updated, err)
	}
	select {
	case ev := <-w.ResultChan():
		r, ok := ev.Object.(*appsv1.ControllerRevision)
		if ev.Type != watch.Modified || !ok || r.Revision != 2 {
			t.Errorf("watched %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch saw no update")
	}
	updated.Data = runtime.RawExtension{Raw: []byte(`{"spec":{}}`)}
	if _, err := revs.Update(ctx, updated, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "data") {
		t.Errorf("new data: %v, want it refused naming data", err)
	}
	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if err := revs.Delete(ctx, "db-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

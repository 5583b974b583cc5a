package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// decodeCM reads an answer as a ConfigMap.
var decodeCM = decodeInto[corev1.ConfigMap]

const cmPath = "/api/v1/namespaces/default/configmaps"

func TestConfigMapLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodeCM(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath + "?fieldValidation=Strict",
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"pico-config","labels":{"app":"pico"}},"data":{"interval":"10","led":"on"}}`}))
	if created.Namespace != "default" || created.UID == "" || created.ResourceVersion != strconv.FormatInt(api.head(t), 10) ||
		!created.CreationTimestamp.Equal(&metaT0) {
		t.Errorf("created: %+v", created.ObjectMeta)
	}

	patches := []struct {
		name, contentType, patch string
		want                     map[string]string
	}{
		{"merge", mergePatch, `{"data":{"interval":"5","led":null}}`, map[string]string{"interval": "5"}},
		{"strategic merge", strategicPatch, `{"data":{"mode":"blink"}}`, map[string]string{"interval": "5", "mode": "blink"}},
		{"JSON patch", jsonPatch, `[{"op":"replace","path":"/data/mode","value":"off"},{"op":"add","path":"/data/x","value":"1"}]`,
			map[string]string{"interval": "5", "mode": "off", "x": "1"}},
	}
	for _, p := range patches {
		got := decodeCM(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: cmPath + "/pico-config", contentType: p.contentType, body: p.patch}))
		if diff := cmp.Diff(p.want, got.Data); diff != "" {
			t.Errorf("%s patch: data (-want +got):\n%s", p.name, diff)
		}
		if got.ResourceVersion != strconv.FormatInt(api.head(t), 10) {
			t.Errorf("%s patch: resourceVersion %s, head %d", p.name, got.ResourceVersion, api.head(t))
		}
	}

	cur := decodeCM(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: cmPath + "/pico-config"}))
	stale := cur.DeepCopy()
	cur.Data = map[string]string{"interval": "1"}
	body, _ := json.Marshal(cur)
	replaced := decodeCM(t, mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: cmPath + "/pico-config", body: string(body)}))
	if diff := cmp.Diff(map[string]string{"interval": "1"}, replaced.Data); diff != "" {
		t.Errorf("replace: data (-want +got):\n%s", diff)
	}
	stale.Data["interval"] = "99"
	body, _ = json.Marshal(stale)
	before := api.head(t)
	a := mustSend(t, nil, base, http.StatusConflict, req{method: "PUT", path: cmPath + "/pico-config", body: string(body)})
	if reason, _ := a.status(t); reason != "Conflict" || api.head(t) != before {
		t.Errorf("stale replace: reason %s, head %d -> %d", reason, before, api.head(t))
	}
	stalePatch := `{"metadata":{"resourceVersion":"` + stale.ResourceVersion + `"},"data":{"interval":"98"}}`
	mustSend(t, nil, base, http.StatusConflict, req{method: "PATCH", path: cmPath + "/pico-config", contentType: mergePatch, body: stalePatch})

	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces", body: `{"metadata":{"name":"lab"}}`})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/namespaces/lab/configmaps", body: `{"metadata":{"name":"other","labels":{"app":"lab"}}}`})
	lists := []struct{ path, want string }{
		{"/api/v1/configmaps", "default/pico-config lab/other"},
		{"/api/v1/configmaps?labelSelector=app%3Dlab", "lab/other"},
		{cmPath, "default/pico-config"},
		{"/api/v1/namespaces/lab/configmaps?fieldSelector=metadata.name%3Dnone", ""},
	}
	for _, l := range lists {
		var list corev1.ConfigMapList
		if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: l.path}).body, &list); err != nil {
			t.Fatal(err)
		}
		got := ""
		for i, c := range list.Items {
			if i > 0 {
				got += " "
			}
			got += c.Namespace + "/" + c.Name
		}
		if got != l.want || list.ResourceVersion != strconv.FormatInt(api.head(t), 10) {
			t.Errorf("GET %s: %q at %s, want %q at %d", l.path, got, list.ResourceVersion, l.want, api.head(t))
		}
	}

	mustSend(t, nil, base, http.StatusConflict, req{method: "DELETE", path: cmPath + "/pico-config", body: `{"preconditions":{"resourceVersion":"1"}}`})
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: cmPath + "/pico-config"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: cmPath + "/pico-config"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "DELETE", path: cmPath + "/pico-config"})
}

func TestConfigMapRefusals(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"frozen"},"data":{"a":"b"},"immutable":true}`})
	tests := []struct {
		name   string
		rq     req
		code   int
		reason string
	}{
		{"a taken name", req{method: "POST", path: cmPath, body: `{"metadata":{"name":"frozen"}}`}, 409, "AlreadyExists"},
		{"a bad key", req{method: "POST", path: cmPath, body: `{"metadata":{"name":"x"},"data":{"a b":"c"}}`}, 422, "Invalid"},
		{"a bad name", req{method: "POST", path: cmPath, body: `{"metadata":{"name":"X_1"}}`}, 422, "Invalid"},
		{"another namespace in the body", req{method: "POST", path: cmPath, body: `{"metadata":{"name":"x","namespace":"lab"}}`}, 400, "BadRequest"},
		{"an unknown field under strict validation", req{method: "POST", path: cmPath + "?fieldValidation=Strict", body: `{"metadata":{"name":"x"},"dta":{}}`}, 400, "BadRequest"},
		{"not JSON", req{method: "POST", path: cmPath, body: `{`}, 400, "BadRequest"},
		// A dry run is served now (TestDryRunChangesNothing); one of a
		// value kube-apiserver does not know is refused.
		{"a dry run of no kind herd knows", req{method: "POST", path: cmPath + "?dryRun=Some", body: `{"metadata":{"name":"x"}}`}, 400, "BadRequest"},
		{"another name in the body of a PUT", req{method: "PUT", path: cmPath + "/frozen", body: `{"metadata":{"name":"y"}}`}, 400, "BadRequest"},
		{"a PUT of nothing", req{method: "PUT", path: cmPath + "/nothing", body: `{"metadata":{"name":"nothing"}}`}, 404, "NotFound"},
		{"immutable data", req{method: "PATCH", path: cmPath + "/frozen", contentType: mergePatch, body: `{"data":{"a":"c"}}`}, 422, "Invalid"},
		{"a patch that renames", req{method: "PATCH", path: cmPath + "/frozen", contentType: mergePatch, body: `{"metadata":{"name":"y"}}`}, 422, "Invalid"},
		{"a JSON patch whose test fails", req{method: "PATCH", path: cmPath + "/frozen", contentType: jsonPatch, body: `[{"op":"test","path":"/data/a","value":"z"}]`}, 422, "Invalid"},
		{"a JSON patch that does not parse", req{method: "PATCH", path: cmPath + "/frozen", contentType: jsonPatch, body: `{"op":"x"}`}, 400, "BadRequest"},
		{"server-side apply", req{method: "PATCH", path: cmPath + "/frozen", contentType: "application/apply-patch+yaml", body: `data: {}`}, 415, "UnsupportedMediaType"},
		{"a bad resourceVersion", req{method: "PUT", path: cmPath + "/frozen", body: `{"metadata":{"name":"frozen","resourceVersion":"abc"}}`}, 400, "BadRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := api.head(t)
			a := mustSend(t, nil, base, tt.code, tt.rq)
			if reason, _ := a.status(t); reason != tt.reason {
				t.Errorf("reason %s, want %s: %s", reason, tt.reason, a.body)
			}
			if after := api.head(t); after != before {
				t.Errorf("a refused request moved the log from %d to %d", before, after)
			}
		})
	}
}

func TestConfigMapTable(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"pico-config"},"data":{"a":"1","b":"2"},"binaryData":{"c":"AAE="}}`})
	api.clock.Step(90 * 60e9)
	r, _ := http.NewRequestWithContext(t.Context(), "GET", base+cmPath, nil)
	r.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var table struct {
		Kind string `json:"kind"`
		Rows []struct {
			Cells []any `json:"cells"`
		} `json:"rows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
		t.Fatal(err)
	}
	if table.Kind != "Table" || len(table.Rows) != 1 {
		t.Fatalf("table %+v", table)
	}
	if diff := cmp.Diff([]any{"pico-config", float64(3), "90m"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

// TestConfigMapInProtobuf is kubectl create configmap's request: typed
// kubectl commands send Kubernetes' protobuf.
func TestConfigMapInProtobuf(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	in := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "pico-config"},
		Data:       map[string]string{"interval": "5"},
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme, scheme).Encode(in, &buf); err != nil {
		t.Fatal(err)
	}
	got := decodeCM(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: cmPath, contentType: protobufType, body: buf.String()}))
	if diff := cmp.Diff(in.Data, got.Data); diff != "" || got.Name != "pico-config" {
		t.Errorf("created %s (-want +got data):\n%s", got.Name, diff)
	}
	a := mustSend(t, nil, base, http.StatusBadRequest, req{method: "POST", path: cmPath, contentType: protobufType, body: "k8s\x00garbage"})
	if reason, _ := a.status(t); reason != "BadRequest" {
		t.Errorf("garbage protobuf: %s", a.body)
	}
	mustSend(t, nil, base, http.StatusUnsupportedMediaType, req{method: "POST", path: cmPath, contentType: "application/yaml", body: "metadata: {}"})
}

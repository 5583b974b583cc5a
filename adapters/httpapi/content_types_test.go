package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/projections/watch"
)

// encodings are the media types every Kubernetes body comes in.
var encodings = []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf, runtime.ContentTypeCBOR}

// exchanged is one answer: its code, Content-Type and body.
type exchanged struct {
	code int
	ct   string
	body []byte
}

// exchange sends body with Content-Type ct and Accept accept.
func exchange(t *testing.T, base, method, path, ct, accept string, body []byte) exchanged {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	r, err := http.NewRequestWithContext(t.Context(), method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return exchanged{code: resp.StatusCode, ct: resp.Header.Get("Content-Type"), body: data}
}

// encode is obj in media type mt, as client-go encodes it.
func encode(t testing.TB, mt string, obj runtime.Object) []byte {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mt)
	if !ok {
		t.Fatalf("no serializer for %s", mt)
	}
	var buf bytes.Buffer
	if err := codecs.WithoutConversion().EncoderForVersion(info.Serializer, nil).Encode(obj, &buf); err != nil {
		t.Fatalf("encode %T as %s: %v", obj, mt, err)
	}
	return buf.Bytes()
}

// decode reads an answer into into by its Content-Type, which must be mt.
func decode(t *testing.T, e exchanged, mt string, into runtime.Object) {
	t.Helper()
	if got := strings.SplitN(e.ct, ";", 2)[0]; got != mt {
		t.Fatalf("answer %d in %q, want %s: %q", e.code, e.ct, mt, e.body)
	}
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mt)
	obj, _, err := info.Serializer.Decode(e.body, nil, into)
	if err != nil {
		t.Fatalf("decode %s answer: %v: %q", mt, err, e.body)
	}
	if obj != into {
		t.Fatalf("answer is a %T, want %T", obj, into)
	}
}

func want(t *testing.T, e exchanged, code int) {
	t.Helper()
	if e.code != code {
		t.Fatalf("answer %d %q, want %d", e.code, e.body, code)
	}
}

func testNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": "a"}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		}}},
	}
}

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

// TestEveryResourceRoundTripsInEveryEncoding: nodes, pods and ConfigMaps
// are created, read, updated and listed, their subresources written, in
// JSON, protobuf and CBOR, each answered in the encoding it was sent in.
func TestEveryResourceRoundTripsInEveryEncoding(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	for _, mt := range encodings {
		t.Run(mt, func(t *testing.T) {
			suffix := strings.NewReplacer("/", "-", ".", "-").Replace(mt)
			node, pod, cm := "n-"+suffix, "p-"+suffix, "c-"+suffix

			// Nodes: create, get, update, status update, list.
			var n corev1.Node
			e := exchange(t, a.url, "POST", "/api/v1/nodes", mt, mt, encode(t, mt, testNode(node)))
			want(t, e, http.StatusCreated)
			decode(t, e, mt, &n)
			if n.Name != node || n.Labels["zone"] != "a" || n.ResourceVersion == "" {
				t.Fatalf("created node %+v", n.ObjectMeta)
			}
			n = corev1.Node{}
			decode(t, exchange(t, a.url, "GET", "/api/v1/nodes/"+node, "", mt, nil), mt, &n)
			n.Labels["zone"] = "b"
			n.Spec.Unschedulable = true
			e = exchange(t, a.url, "PUT", "/api/v1/nodes/"+node, mt, mt, encode(t, mt, &n))
			want(t, e, http.StatusOK)
			var updated corev1.Node
			decode(t, e, mt, &updated)
			if updated.Labels["zone"] != "b" || !updated.Spec.Unschedulable {
				t.Fatalf("update not applied: %+v %+v", updated.Labels, updated.Spec)
			}
			stale := exchange(t, a.url, "PUT", "/api/v1/nodes/"+node, mt, mt, encode(t, mt, &n))
			want(t, stale, http.StatusConflict)
			var st metav1.Status
			decode(t, stale, mt, &st)
			if st.Reason != metav1.StatusReasonConflict {
				t.Fatalf("stale update: %+v", st)
			}
			updated.Status.Conditions[0].Status = corev1.ConditionFalse
			e = exchange(t, a.url, "PUT", "/api/v1/nodes/"+node+"/status", mt, mt, encode(t, mt, &updated))
			want(t, e, http.StatusOK)
			var reported corev1.Node
			decode(t, e, mt, &reported)
			if NodeStatus(&reported) != "NotReady,SchedulingDisabled" {
				t.Fatalf("status update not applied: %s", NodeStatus(&reported))
			}
			var nodes corev1.NodeList
			decode(t, exchange(t, a.url, "GET", "/api/v1/nodes?fieldSelector=metadata.name="+node, "", mt, nil), mt, &nodes)
			if len(nodes.Items) != 1 || nodes.Items[0].Name != node || nodes.ResourceVersion == "" {
				t.Fatalf("node list: %+v", nodes)
			}

			// Pods: create, update, status update, binding, eviction.
			pods := "/api/v1/namespaces/default/pods"
			var p corev1.Pod
			e = exchange(t, a.url, "POST", pods, mt, mt, encode(t, mt, testPod(pod)))
			want(t, e, http.StatusCreated)
			decode(t, e, mt, &p)
			p.Labels = map[string]string{"app": "web"}
			e = exchange(t, a.url, "PUT", pods+"/"+pod, mt, mt, encode(t, mt, &p))
			want(t, e, http.StatusOK)
			decode(t, e, mt, &p)
			if p.Labels["app"] != "web" {
				t.Fatalf("pod labels not updated: %v", p.Labels)
			}
			e = exchange(t, a.url, "POST", pods+"/"+pod+"/binding", mt, mt, encode(t, mt, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Name: pod}, Target: corev1.ObjectReference{Kind: "Node", Name: node},
			}))
			want(t, e, http.StatusCreated)
			decode(t, e, mt, &st)
			p = corev1.Pod{}
			decode(t, exchange(t, a.url, "GET", pods+"/"+pod, "", mt, nil), mt, &p)
			if p.Spec.NodeName != node {
				t.Fatalf("binding not applied: %q", p.Spec.NodeName)
			}
			p.Status.Phase = corev1.PodRunning
			e = exchange(t, a.url, "PUT", pods+"/"+pod+"/status", mt, mt, encode(t, mt, &p))
			want(t, e, http.StatusOK)
			decode(t, e, mt, &p)
			if p.Status.Phase != corev1.PodRunning {
				t.Fatalf("pod status not updated: %s", p.Status.Phase)
			}
			var podList corev1.PodList
			decode(t, exchange(t, a.url, "GET", pods+"?labelSelector=app%3Dweb", "", mt, nil), mt, &podList)
			if len(podList.Items) == 0 {
				t.Fatal("pod list is empty")
			}
			e = exchange(t, a.url, "POST", pods+"/"+pod+"/eviction", mt, mt, encode(t, mt, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod}}))
			want(t, e, http.StatusCreated)

			// ConfigMaps: create, update, list, delete with options.
			cms := "/api/v1/namespaces/default/configmaps"
			var c corev1.ConfigMap
			e = exchange(t, a.url, "POST", cms, mt, mt, encode(t, mt, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cm}, Data: map[string]string{"k": "v"}}))
			want(t, e, http.StatusCreated)
			decode(t, e, mt, &c)
			c.Data["k"] = "w"
			e = exchange(t, a.url, "PUT", cms+"/"+cm, mt, mt, encode(t, mt, &c))
			want(t, e, http.StatusOK)
			decode(t, e, mt, &c)
			if c.Data["k"] != "w" {
				t.Fatalf("configmap not updated: %v", c.Data)
			}
			var cmList corev1.ConfigMapList
			decode(t, exchange(t, a.url, "GET", cms, "", mt, nil), mt, &cmList)
			if len(cmList.Items) == 0 {
				t.Fatal("configmap list is empty")
			}
			rv := "1"
			e = exchange(t, a.url, "DELETE", cms+"/"+cm, mt, mt, encode(t, mt, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}))
			want(t, e, http.StatusConflict)
			decode(t, e, mt, &st)
		})
	}
}

// TestUnreadableBodiesAre415AndChangeNothing: a create or update in a
// media type herd does not read is refused with a Status naming it and
// the types herd reads, and the log does not move.
func TestUnreadableBodiesAre415AndChangeNothing(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	want(t, exchange(t, a.url, "POST", "/api/v1/nodes", "", "", []byte(nodeJSON("n1"))), http.StatusCreated)
	// Media types are case-insensitive.
	want(t, exchange(t, a.url, "POST", "/api/v1/nodes", "Application/JSON; charset=utf-8", "", []byte(nodeJSON("n0"))), http.StatusCreated)
	for _, tc := range []struct{ name, method, path, ct string }{
		{"node as YAML", "POST", "/api/v1/nodes", "application/yaml"},
		{"node update as text", "PUT", "/api/v1/nodes/n1", "text/plain"},
		{"node status as XML", "PUT", "/api/v1/nodes/n1/status", "application/xml"},
		{"pod as form", "POST", "/api/v1/namespaces/default/pods", "application/x-www-form-urlencoded"},
		{"configmap as YAML", "POST", "/api/v1/namespaces/default/configmaps", "application/yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := a.head(t)
			e := exchange(t, a.url, tc.method, tc.path, tc.ct, "", []byte("kind: Node"))
			want(t, e, http.StatusUnsupportedMediaType)
			var st metav1.Status
			decode(t, e, runtime.ContentTypeJSON, &st)
			if st.Reason != metav1.StatusReasonUnsupportedMediaType || !strings.Contains(st.Message, tc.ct) ||
				!strings.Contains(st.Message, "application/json, application/vnd.kubernetes.protobuf, application/cbor") {
				t.Errorf("Status %+v does not name %s and the accepted types", st, tc.ct)
			}
			if after := a.head(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
		})
	}
}

// TestAcceptIsNegotiatedAsKubeAPIServerDoes: the first acceptable clause
// in q order wins, */* is JSON, Tables are JSON only, and an Accept that
// nothing fits is 406 — before a create changes anything.
func TestAcceptIsNegotiatedAsKubeAPIServerDoes(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	want(t, exchange(t, a.url, "POST", "/api/v1/nodes", "", "", []byte(nodeJSON("n1"))), http.StatusCreated)
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	for _, tc := range []struct {
		name, path, accept, wantType string
		wantTable                    bool
	}{
		{"no Accept", "/api/v1/nodes/n1", "", runtime.ContentTypeJSON, false},
		{"anything", "/api/v1/nodes/n1", "*/*", runtime.ContentTypeJSON, false},
		{"client-go's default", "/api/v1/nodes/n1", "application/vnd.kubernetes.protobuf,application/json", runtime.ContentTypeProtobuf, false},
		{"q order", "/api/v1/nodes", "application/json;q=0.9,application/cbor;q=1", runtime.ContentTypeCBOR, false},
		{"application/*", "/api/v1/nodes", "text/html, application/*;q=0.5", runtime.ContentTypeJSON, false},
		{"kubectl get", "/api/v1/nodes", table + ",application/json", runtime.ContentTypeJSON, true},
		{"table of one", "/api/v1/nodes/n1", table, runtime.ContentTypeJSON, true},
		{"protobuf table passed over", "/api/v1/nodes", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io," + table, runtime.ContentTypeJSON, true},
		{"protobuf table then protobuf", "/api/v1/nodes", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/vnd.kubernetes.protobuf", runtime.ContentTypeProtobuf, false},
		{"table of events", "/api/v1/events", table + ",application/json", runtime.ContentTypeJSON, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := exchange(t, a.url, "GET", tc.path, "", tc.accept, nil)
			want(t, e, http.StatusOK)
			if tc.wantTable {
				var tab metav1.Table
				decode(t, e, tc.wantType, &tab)
				if len(tab.Rows) == 0 || tab.Kind != "Table" {
					t.Fatalf("not a table: %s", e.body)
				}
				return
			}
			if got := strings.SplitN(e.ct, ";", 2)[0]; got != tc.wantType {
				t.Fatalf("answered in %s, want %s", got, tc.wantType)
			}
			if bytes.Contains(e.body, []byte(`"kind":"Table"`)) {
				t.Fatalf("answered with a table: %s", e.body)
			}
		})
	}

	for _, tc := range []struct{ name, method, path, accept string }{
		{"html", "GET", "/api/v1/nodes/n1", "text/html"},
		{"protobuf table only", "GET", "/api/v1/nodes", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"},
		{"metadata only", "GET", "/api/v1/nodes", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"},
		{"create answered in html", "POST", "/api/v1/nodes", "text/html"},
		{"herd's kinds have no protobuf", "GET", "/apis/herd.dev/v1/kubelettargets", "application/vnd.kubernetes.protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := a.head(t)
			var body []byte
			if tc.method == "POST" {
				body = []byte(nodeJSON("n2"))
			}
			e := exchange(t, a.url, tc.method, tc.path, "", tc.accept, body)
			want(t, e, http.StatusNotAcceptable)
			var st metav1.Status
			decode(t, e, runtime.ContentTypeJSON, &st)
			if st.Reason != metav1.StatusReasonNotAcceptable || !strings.Contains(st.Message, "application/json") {
				t.Errorf("Status %+v does not name what herd answers in", st)
			}
			if after := a.head(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
		})
	}
}

// TestErrorsAreAnsweredInTheNegotiatedEncoding: a Status error comes in
// the media type the client accepts, as client-go decodes it.
func TestErrorsAreAnsweredInTheNegotiatedEncoding(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	for _, mt := range encodings {
		e := exchange(t, a.url, "GET", "/api/v1/nodes/missing", "", mt, nil)
		want(t, e, http.StatusNotFound)
		var st metav1.Status
		decode(t, e, mt, &st)
		if st.Reason != metav1.StatusReasonNotFound || st.Code != http.StatusNotFound {
			t.Errorf("%s: %+v", mt, st)
		}
	}
}

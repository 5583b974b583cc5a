package httpapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// fastJSONBodies are Node and Lease bodies, well- and ill-formed, that the
// fast path must decode as apimachinery's serializer does or leave to it.
func fastJSONBodies(t testing.TB) []string {
	full := benchNode("full")
	full.Spec = corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24"}, ProviderID: "kind://x", Unschedulable: true,
		Taints: []corev1.Taint{{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: t0}}}}
	full.UID, full.ResourceVersion, full.Generation, full.GenerateName = "6a3c", "17", 3, "gen-"
	full.Annotations = map[string]string{"a": "b", "ünï": "cödé"}
	full.Finalizers = []string{"f"}
	full.CreationTimestamp = metav1.NewTime(t0)
	full.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "X", Name: "o", UID: "u"}}
	full.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Time: &metav1.Time{Time: t0}, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:status":{}}`)}}
	full.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: "v1.31.0", OSImage: "Debian", Architecture: "amd64"}
	full.Status.DaemonEndpoints.KubeletEndpoint.Port = 10250
	full.Status.Images = []corev1.ContainerImage{{Names: []string{"a:1", "a@sha256:00"}, SizeBytes: 1 << 33}}
	full.Status.VolumesAttached = []corev1.AttachedVolume{{Name: "v", DevicePath: "/dev/x"}}
	full.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3500m"), "example.com/gpu": resource.MustParse("2")}
	holder, dur := "full", int32(40)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "full", Namespace: "kube-node-lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur,
			RenewTime: &metav1.MicroTime{Time: t0}, AcquireTime: &metav1.MicroTime{Time: t0}}}
	bodies := []string{
		string(encode(t, "application/json", full)),
		string(encode(t, "application/json", benchNode("n000001"))),
		string(encode(t, "application/json", lease)),
		`{}`, `null`, ` {"metadata":{"name":"n1"}} `, `{"metadata":{"name":"n1"}} x`, `{}{}`, `[]`, `"x"`, ``, `{`,
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}`,
		`{"apiVersion":"v1","metadata":{"name":"n1"}}`, `{"kind":"Node","metadata":{"name":"n1"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"n1"}}`, `{"apiVersion":"v2","kind":"Node"}`,
		`{"apiVersion":"apps/v1","kind":"Node"}`, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"}}`,
		`{"apiVersion":"coordination.k8s.io/v1beta1","kind":"Lease"}`, `{"apiVersion":"coordination.k8s.io/v1"}`, `{"kind":"Lease"}`,
		`{"Metadata":{"name":"n1"}}`, `{"APIVersion":"v1","Kind":"Node"}`, `{"apiversion":"v2"}`, `{"metadata":{"Name":"n1"}}`,
		`{"metadata":{"name":"a","name":"b"}}`, `{"kind":"Node","kind":"Node"}`,
		`{"spec":{"foo":1}}`, `{"metadata":{"name":"n1","bogus":true}}`, `{"status":{"nodeInfo":{"x":1}}}`,
		`{"metadata":null}`, `{"metadata":{"labels":null}}`, `{"metadata":{"labels":{"a":null}}}`,
		`{"status":{"capacity":{"cpu":null}}}`, `{"spec":{"taints":[null]}}`, `{"spec":{"podCIDRs":[null,"x"]}}`,
		`{"metadata":{"creationTimestamp":null}}`, `{"metadata":{"creationTimestamp":""}}`,
		`{"metadata":{"creationTimestamp":"2026-11-29T01:00:00+02:00"}}`, `{"metadata":{"creationTimestamp":"bogus"}}`,
		`{"metadata":{"generation":40.0}}`, `{"metadata":{"generation":4e1}}`, `{"metadata":{"generation":1E1}}`,
		`{"metadata":{"generation":-0}}`, `{"metadata":{"generation":"4"}}`, `{"metadata":{"generation":9223372036854775808}}`,
		`{"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":2147483648}}}}`, `{"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}}`,
		`{"status":{"capacity":{"cpu":4}}}`, `{"status":{"capacity":{"cpu":"1.5"}}}`, `{"status":{"capacity":{"cpu":"1e3"}}}`,
		`{"status":{"capacity":{"cpu":"bogus"}}}`, `{"status":{"capacity":{"cpu":"-1"}}}`, `{"status":{"capacity":{"cpu":true}}}`,
		`{"metadata":{"name":"\ud800"}}`, `{"metadata":{"name":"\udc00\ud800x"}}`, "{\"metadata\":{\"name\":\"a\xffb\"}}",
		`{"metadata":{"name":"a\u0000b"}}`, `{"metadata":{"name":"\u00e9\n\t\"\\\/"}}`, `{"metadata":{"na\u006de":"n1"}}`,
		`{"metadata":{"name":1}}`, `{"metadata":{"labels":[]}}`, `{"metadata":{"labels":{"a":1}}}`, `{"spec":{"unschedulable":"true"}}`,
		`{"spec":{"taints":{}}}`, `{"status":{"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-11-29T01:00:00Z"}]}}`,
		`{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},"fieldsType":"FieldsV1"}]}}`, `{"metadata":{"managedFields":[{"fieldsV1":null}]}}`,
		`{"metadata":{"managedFields":[{"fieldsV1":"x"}]}}`,
		`{"spec":{"holderIdentity":"h","leaseDurationSeconds":40,"renewTime":"2026-11-29T01:00:00.000000Z"}}`,
		`{"spec":{"renewTime":"2026-11-29T01:00:00Z"}}`, `{"spec":{"renewTime":"2026-11-29T01:00:00.123456789Z"}}`,
		`{"spec":{"renewTime":null,"holderIdentity":null}}`, `{"spec":{"renewTime":""}}`, `{"spec":{"renewTime":5}}`,
		`{"spec":{"leaseDurationSeconds":40.5}}`, `{"spec":{"leaseDurationSeconds":2147483648}}`, `{"spec":{"leaseTransitions":-1}}`,
		`{"spec":{"strategy":"OldestEmulationVersion","preferredHolder":"p"}}`,
		`{"metadata":{"name":"n1"},"spec":{"podCIDR":"` + strings.Repeat("x", 5000) + `"}}`,
		`{"metadata":{"name":"n1"}}` + strings.Repeat(" ", 10) + "\n",
	}
	return bodies
}

// TestFastJSONDecodesAsApimachinery holds decodeFastJSON to apimachinery's
// serializer, strict and not, for Nodes and Leases: where the fast path
// decodes a body the serializer decodes it into the same object without a
// complaint; where it does not, the object is left zero for the
// serializer.
func TestFastJSONDecodesAsApimachinery(t *testing.T) {
	for _, body := range fastJSONBodies(t) {
		checkFastJSON(t, []byte(body))
	}
}

// FuzzFastJSONDecodesAsApimachinery is TestFastJSONDecodesAsApimachinery
// over bodies the fuzzer makes from them.
func FuzzFastJSONDecodesAsApimachinery(f *testing.F) {
	for _, body := range fastJSONBodies(f) {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkFastJSON(t, body) })
}

func checkFastJSON(t *testing.T, body []byte) {
	t.Helper()
	for _, fresh := range []func() runtime.Object{
		func() runtime.Object { return &corev1.Node{} },
		func() runtime.Object { return &coordinationv1.Lease{} },
	} {
		fast := fresh()
		ok := decodeFastJSON(body, fast)
		if !ok {
			if !reflect.DeepEqual(fast, fresh()) {
				t.Fatalf("%T left changed by a declined fast decode of %q: %#v", fast, body, fast)
			}
			continue
		}
		info, _ := runtime.SerializerInfoForMediaType(servedTypes, runtime.ContentTypeJSON)
		for _, dec := range []runtime.Decoder{info.Serializer, info.StrictSerializer} {
			slow := fresh()
			obj, _, err := dec.Decode(body, nil, slow)
			if err != nil {
				t.Fatalf("%T: the fast path decoded %q, the serializer refuses it: %v", slow, body, err)
			}
			if obj != slow {
				t.Fatalf("%T: the fast path decoded %q, the serializer made a %T of it", slow, body, obj)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%T of %q:\nfast       %#v\nserializer %#v", slow, body, fast, slow)
			}
		}
	}
}

// TestFastJSONTakesOnlyAZeroObject: the serializer decodes over what its
// target holds, so the fast path leaves a target that holds anything to
// it.
func TestFastJSONTakesOnlyAZeroObject(t *testing.T) {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"kept": "yes"}}}
	if decodeFastJSON([]byte(`{"metadata":{"name":"n1"}}`), n) {
		t.Fatal("the fast path decoded into a Node that held labels")
	}
	if n.Name != "" || n.Labels["kept"] != "yes" {
		t.Fatalf("declined fast decode changed the Node: %#v", n)
	}
}

// TestNodeAndLeaseBodiesAreReadAsKubernetesReadsThem sends, over HTTP,
// the Node and Lease bodies the quick decoding leaves to apimachinery's
// serializer, and holds herd to the serializer's answers: a name in
// another case or unknown is dropped (refused under strict validation), a
// name twice takes its last value (refused under strict validation), a
// body of another kind is refused, and a well-formed body is read whole.
func TestNodeAndLeaseBodiesAreReadAsKubernetesReadsThem(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
	getNode := func(name string) corev1.Node {
		t.Helper()
		var n corev1.Node
		a := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/nodes/" + name})
		if err := json.Unmarshal(a.body, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes",
		body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"whole","labels":{"a":"b"}},"status":{"capacity":{"cpu":"4"}}}`})
	if n := getNode("whole"); n.Labels["a"] != "b" || n.Status.Capacity.Cpu().String() != "4" {
		t.Errorf("a well-formed Node was not read whole: labels %v, capacity %v", n.Labels, n.Status.Capacity)
	}

	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes",
		body: `{"metadata":{"name":"loose","Labels":{"a":"b"},"labelz":{"c":"d"}}}`})
	if n := getNode("loose"); n.Labels["a"] != "" || n.Labels["c"] != "" {
		t.Errorf("a name in another case or unknown was read: labels %v", n.Labels)
	}

	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes",
		body: `{"metadata":{"name":"first","name":"twice"}}`})
	getNode("twice")

	for _, tc := range []struct {
		name, path, method, body, want string
		code                           int
	}{
		{"an unknown field, strictly", "/api/v1/nodes?fieldValidation=Strict", "POST", `{"metadata":{"name":"x"},"spce":{}}`, `unknown field "spce"`, 400},
		{"a field in another case, strictly", "/api/v1/nodes?fieldValidation=Strict", "POST", `{"Metadata":{"name":"x"}}`, `unknown field "Metadata"`, 400},
		{"a name twice, strictly", "/api/v1/nodes?fieldValidation=Strict", "POST", `{"metadata":{"name":"x","name":"y"}}`, `duplicate field "metadata.name"`, 400},
		{"a Pod for a Node", "/api/v1/nodes", "POST", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`, "Pod", 400},
		{"a Lease of another version", leases + "/x", "PUT", `{"apiVersion":"coordination.k8s.io/v1beta1","kind":"Lease","metadata":{"name":"x"}}`, "v1beta1", 400},
		{"an unknown Lease field, strictly", leases + "/whole?fieldValidation=Strict", "PUT", `{"metadata":{"name":"whole"},"spec":{"holder":"x"}}`, `unknown field "spec.holder"`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := api.head(t)
			a := mustSend(t, nil, base, tc.code, req{method: tc.method, path: tc.path, body: tc.body})
			if _, msg := a.status(t); !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want it to say %q", msg, tc.want)
			}
			if after := api.head(t); after != before {
				t.Errorf("the log moved from %d to %d", before, after)
			}
		})
	}
}

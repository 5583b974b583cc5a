package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rejection is one bad write and how herd must refuse it: the code, the
// fields its Status names (Kubernetes' paths, sorted), and for a 400 some
// words of its message.
type rejection struct {
	name   string
	rq     req
	code   int
	fields []string
	says   string
}

const (
	validationPod = "/api/v1/namespaces/default/pods"
	validationCM  = "/api/v1/namespaces/default/configmaps"
)

// validPodJSON is a pod that kube-apiserver would take, with everything
// the bad variants below change.
const validPodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
"spec":{"restartPolicy":"Always","tolerations":[{"key":"dedicated","operator":"Equal","value":"db","effect":"NoSchedule"}],
"containers":[{"name":"web","image":"nginx","imagePullPolicy":"IfNotPresent","ports":[{"containerPort":8080,"protocol":"TCP"}],
"resources":{"requests":{"cpu":"250m","memory":"64Mi"},"limits":{"cpu":"500m"}}}]}}`

// newValidationAPI serves a herd holding a node web-01, a pod
// default/web and a ConfigMap default/cfg, all written through the API.
func newValidationAPI(t *testing.T) (*testAPI, string) {
	t.Helper()
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("web-01")})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: validationPod, body: validPodJSON})
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: validationCM, body: `{"metadata":{"name":"cfg","labels":{"app":"web"}},"data":{"a":"b"}}`})
	return api, base
}

// current reads path as JSON, changes it with edit, and gives it back
// as a body to PUT, without its resourceVersion: the PUT is then
// unconditional, whatever the cases before it did.
func current[T any](t *testing.T, base, path string, edit func(*T)) string {
	t.Helper()
	var obj T
	if err := json.Unmarshal(mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: path}).body, &obj); err != nil {
		t.Fatal(err)
	}
	edit(&obj)
	if m, ok := any(&obj).(interface{ SetResourceVersion(string) }); ok {
		m.SetResourceVersion("")
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// podWith is validPodJSON named web-2, with old replaced by new, which
// must be there.
func podWith(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(validPodJSON, old) {
		t.Fatalf("the valid pod has no %s", old)
	}
	return strings.Replace(strings.Replace(validPodJSON, old, new, 1), `"name":"web",`, `"name":"web-2",`, 1)
}

// nodeWith is a node web-02 to create, with the given spec and status.
func nodeWith(spec, status string) string {
	return `{"apiVersion":"v1","kind":"Node","metadata":{"name":"web-02"},"spec":` + spec + `,"status":` + status + `}`
}

// refuses sends each bad write and checks that it is refused as wanted
// and that the log did not move.
func refuses(t *testing.T, api *testAPI, base string, cases []rejection) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := api.head(t)
			a := send(t, nil, base, tc.rq)
			if after := api.head(t); after != before {
				t.Errorf("a refused write moved the log from %d to %d", before, after)
			}
			if a.code != tc.code {
				t.Fatalf("%d %s, want %d", a.code, a.body, tc.code)
			}
			var st metav1.Status
			if err := json.Unmarshal(a.body, &st); err != nil || st.Kind != "Status" {
				t.Fatalf("the answer is not a Status: %s", a.body)
			}
			wantReason := metav1.StatusReasonInvalid
			if tc.code == http.StatusBadRequest {
				wantReason = metav1.StatusReasonBadRequest
			}
			if st.Reason != wantReason {
				t.Errorf("reason %s, want %s: %s", st.Reason, wantReason, st.Message)
			}
			if !strings.Contains(st.Message, tc.says) {
				t.Errorf("message %q does not say %q", st.Message, tc.says)
			}
			var fields []string
			if st.Details != nil {
				for _, c := range st.Details.Causes {
					if c.Message == "" {
						t.Errorf("cause on %s says nothing", c.Field)
					}
					fields = append(fields, c.Field)
				}
			}
			slices.Sort(fields)
			fields = slices.Compact(fields)
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Errorf("fields named (-want +got):\n%s\n%s", diff, a.body)
			}
		})
	}
}

// TestNodeWritesAreValidated: what kube-apiserver refuses in a Node
// created, replaced or patched, herd refuses too, naming the field, and
// appends nothing.
func TestNodeWritesAreValidated(t *testing.T) {
	api, base := newValidationAPI(t)
	node := "/api/v1/nodes/web-01"
	refuses(t, api, base, []rejection{
		{"a Pod posted as a node", req{method: "POST", path: "/api/v1/nodes",
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-02"}}`}, 400, nil, `Pod in version "v1" cannot be handled as a Node`},
		{"a Node of another group", req{method: "POST", path: "/api/v1/nodes",
			body: `{"apiVersion":"apps/v1","kind":"Node","metadata":{"name":"web-02"}}`}, 400, nil, `cannot be handled as a Node`},
		{"an undecodable body", req{method: "POST", path: "/api/v1/nodes", body: `{"metadata":`}, 400, nil, "Node"},
		{"a bad taint effect", req{method: "POST", path: "/api/v1/nodes",
			body: nodeWith(`{"taints":[{"key":"dedicated","value":"db","effect":"Sometimes"}]}`, `{}`)}, 422, []string{"spec.taints[0].effect"}, `Unsupported value: "Sometimes"`},
		{"a bad condition status", req{method: "POST", path: "/api/v1/nodes",
			body: nodeWith(`{}`, `{"conditions":[{"type":"Ready","status":"Maybe"}]}`)}, 422, []string{"status.conditions[0].status"}, `"Maybe"`},
		{"a negative capacity", req{method: "POST", path: "/api/v1/nodes",
			body: nodeWith(`{}`, `{"capacity":{"pods":"-1"}}`)}, 422, []string{"status.capacity[pods]"}, "must be greater than or equal to 0"},
		{"the same address twice", req{method: "POST", path: "/api/v1/nodes",
			body: nodeWith(`{}`, `{"addresses":[{"type":"InternalIP","address":"10.0.0.2"},{"type":"InternalIP","address":"10.0.0.2"}]}`)},
			422, []string{"status.addresses[1]"}, "Duplicate value"},
		{"a bad label key", req{method: "POST", path: "/api/v1/nodes",
			body: `{"metadata":{"name":"web-02","labels":{"-zone":"a"}}}`}, 422, []string{"metadata.labels"}, "name part must consist of alphanumeric characters"},
		{"a bad label value", req{method: "POST", path: "/api/v1/nodes",
			body: `{"metadata":{"name":"web-02","labels":{"zone":"rack 1"}}}`}, 422, []string{"metadata.labels"}, "a valid label must be"},
		{"a bad annotation key", req{method: "POST", path: "/api/v1/nodes",
			body: `{"metadata":{"name":"web-02","annotations":{"bad key!":"x"}}}`}, 422, []string{"metadata.annotations"}, "name part must consist"},
		{"every problem at once", req{method: "POST", path: "/api/v1/nodes",
			body: nodeWith(`{"taints":[{"key":"a","effect":"Never"}]}`, `{"capacity":{"cpu":"-2"},"conditions":[{"type":"Ready","status":"Maybe"}]}`)},
			422, []string{"spec.taints[0].effect", "status.capacity[cpu]", "status.conditions[0].status"}, ""},
		{"a PUT with a bad taint effect", req{method: "PUT", path: node, body: current(t, base, node, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Effect: "Sometimes"}}
		})}, 422, []string{"spec.taints[0].effect"}, `Unsupported value: "Sometimes"`},
		{"a PUT with a bad label value", req{method: "PUT", path: node, body: current(t, base, node, func(n *corev1.Node) {
			n.Labels["zone"] = "rack 1"
		})}, 422, []string{"metadata.labels"}, "a valid label must be"},
		{"a PUT of a Pod", req{method: "PUT", path: node, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-01"}}`},
			400, nil, `Pod in version "v1" cannot be handled as a Node`},
		{"a patch with a bad taint effect", req{method: "PATCH", path: node, contentType: mergePatch,
			body: `{"spec":{"taints":[{"key":"dedicated","effect":"Sometimes"}]}}`}, 422, []string{"spec.taints[0].effect"}, `"Sometimes"`},
		{"a strategic patch with a bad label key", req{method: "PATCH", path: node, contentType: strategicPatch,
			body: `{"metadata":{"labels":{"-zone":"a"}}}`}, 422, []string{"metadata.labels"}, "name part must consist"},
		{"a JSON patch with a bad annotation key", req{method: "PATCH", path: node, contentType: jsonPatch,
			body: `[{"op":"add","path":"/metadata/annotations/bad key!","value":"x"}]`}, 422, []string{"metadata.annotations"}, "name part must consist"},
		{"a patch that makes the node a Pod", req{method: "PATCH", path: node, contentType: mergePatch,
			body: `{"kind":"Pod"}`}, 422, []string{"kind"}, "must be Node"},
	})
}

// TestNodeStatusWritesAreValidated: a node's report through the status
// subresource, by PATCH or PUT, is refused when kube-apiserver would
// refuse it, and appends nothing (not even a heartbeat).
func TestNodeStatusWritesAreValidated(t *testing.T) {
	api, base := newValidationAPI(t)
	status := "/api/v1/nodes/web-01/status"
	refuses(t, api, base, []rejection{
		{"a negative pods capacity", req{method: "PATCH", path: status, contentType: strategicPatch,
			body: `{"status":{"capacity":{"pods":"-1"}}}`}, 422, []string{"status.capacity[pods]"}, "must be greater than or equal to 0"},
		{"a negative allocatable memory", req{method: "PATCH", path: status, contentType: mergePatch,
			body: `{"status":{"allocatable":{"memory":"-1Gi"}}}`}, 422, []string{"status.allocatable[memory]"}, "must be greater than or equal to 0"},
		{"a bad condition status", req{method: "PATCH", path: status, contentType: strategicPatch,
			body: `{"status":{"conditions":[{"type":"Ready","status":"Maybe"}]}}`}, 422, []string{"status.conditions[0].status"}, `"Maybe"`},
		{"an address without a type", req{method: "PATCH", path: status, contentType: strategicPatch,
			body: `{"status":{"addresses":[{"address":"10.0.0.2"}]}}`}, 422, []string{"status.addresses[0].type"}, "Required value"},
		{"a kubelet port out of range", req{method: "PATCH", path: status, contentType: strategicPatch,
			body: `{"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":70000}}}}`}, 422, []string{"status.daemonEndpoints.kubeletEndpoint.Port"}, "must be between 1 and 65535"},
		{"a PUT with a negative capacity", req{method: "PUT", path: status, body: current(t, base, status, func(n *corev1.Node) {
			n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-4")}
		})}, 422, []string{"status.capacity[cpu]"}, "must be greater than or equal to 0"},
		{"a PUT with a bad condition status", req{method: "PUT", path: status, body: current(t, base, status, func(n *corev1.Node) {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: "Maybe"}}
		})}, 422, []string{"status.conditions[0].status"}, `"Maybe"`},
		{"a PUT of a Pod", req{method: "PUT", path: status, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-01"}}`},
			400, nil, `Pod in version "v1" cannot be handled as a Node`},
	})
	// A good report through the same PUT is taken.
	mustSend(t, nil, base, http.StatusOK, req{method: "PUT", path: status, body: current(t, base, status, func(n *corev1.Node) {
		n.Status.Capacity = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}
	})})
}

// TestPodWritesAreValidated: a pod created, replaced or patched is
// refused where kube-apiserver refuses it.
func TestPodWritesAreValidated(t *testing.T) {
	api, base := newValidationAPI(t)
	pod := validationPod + "/web"
	refuses(t, api, base, []rejection{
		{"restartPolicy Whenever", req{method: "POST", path: validationPod,
			body: podWith(t, `"restartPolicy":"Always"`, `"restartPolicy":"Whenever"`)}, 422, []string{"spec.restartPolicy"},
			`spec.restartPolicy: Unsupported value: "Whenever": supported values: "Always", "Never", "OnFailure"`},
		{"imagePullPolicy Sometimes", req{method: "POST", path: validationPod,
			body: podWith(t, `"imagePullPolicy":"IfNotPresent"`, `"imagePullPolicy":"Sometimes"`)}, 422, []string{"spec.containers[0].imagePullPolicy"}, `"Sometimes"`},
		{"a negative request", req{method: "POST", path: validationPod,
			body: podWith(t, `"memory":"64Mi"`, `"memory":"-64Mi"`)}, 422, []string{"spec.containers[0].resources.requests[memory]"}, "must be greater than or equal to 0"},
		{"a request above its limit", req{method: "POST", path: validationPod,
			body: podWith(t, `"cpu":"250m"`, `"cpu":"2"`)}, 422, []string{"spec.containers[0].resources.requests[cpu]"}, "must be less than or equal to cpu limit of 500m"},
		{"a bad toleration operator", req{method: "POST", path: validationPod,
			body: podWith(t, `"operator":"Equal"`, `"operator":"Like"`)}, 422, []string{"spec.tolerations[0].operator"}, `"Like"`},
		{"a bad toleration effect", req{method: "POST", path: validationPod,
			body: podWith(t, `"effect":"NoSchedule"`, `"effect":"NoWay"`)}, 422, []string{"spec.tolerations[0].effect"}, `"NoWay"`},
		{"a bad port protocol", req{method: "POST", path: validationPod,
			body: podWith(t, `"protocol":"TCP"`, `"protocol":"ICMP"`)}, 422, []string{"spec.containers[0].ports[0].protocol"}, `"ICMP"`},
		{"port 70000", req{method: "POST", path: validationPod,
			body: podWith(t, `"containerPort":8080`, `"containerPort":70000`)}, 422, []string{"spec.containers[0].ports[0].containerPort"}, "must be between 1 and 65535"},
		{"a bad label key", req{method: "POST", path: validationPod,
			body: podWith(t, `"labels":{"app":"web"}`, `"labels":{"-app":"web"}`)}, 422, []string{"metadata.labels"}, "name part must consist"},
		{"a bad annotation key", req{method: "POST", path: validationPod,
			body: podWith(t, `"labels":{"app":"web"}`, `"annotations":{"bad key!":"x"}`)}, 422, []string{"metadata.annotations"}, "name part must consist"},
		{"both of the issue's mistakes at once", req{method: "POST", path: validationPod,
			body: strings.Replace(podWith(t, `"restartPolicy":"Always"`, `"restartPolicy":"Whenever"`), `"imagePullPolicy":"IfNotPresent"`, `"imagePullPolicy":"Sometimes"`, 1)},
			422, []string{"spec.containers[0].imagePullPolicy", "spec.restartPolicy"}, `Pod "web-2" is invalid`},
		{"a Node posted as a pod", req{method: "POST", path: validationPod,
			body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"web-9"}}`}, 400, nil, `Node in version "v1" cannot be handled as a Pod`},
		{"a PUT with a bad label value", req{method: "PUT", path: pod, body: current(t, base, pod, func(p *corev1.Pod) {
			p.Labels["app"] = "web site"
		})}, 422, []string{"metadata.labels"}, "a valid label must be"},
		{"a patch with a bad annotation key", req{method: "PATCH", path: pod, contentType: mergePatch,
			body: `{"metadata":{"annotations":{"bad key!":"x"}}}`}, 422, []string{"metadata.annotations"}, "name part must consist"},
	})
}

// TestPodStatusWritesAreValidated: a pod's status written through its
// status subresource is refused where kube-apiserver refuses it.
func TestPodStatusWritesAreValidated(t *testing.T) {
	api, base := newValidationAPI(t)
	status := validationPod + "/web/status"
	refuses(t, api, base, []rejection{
		{"an unknown phase by PUT", req{method: "PUT", path: status, body: current(t, base, status, func(p *corev1.Pod) {
			p.Status.Phase = "Sleeping"
		})}, 422, []string{"status.phase"}, `Unsupported value: "Sleeping"`},
		{"an unknown phase by patch", req{method: "PATCH", path: status, contentType: mergePatch,
			body: `{"status":{"phase":"Sleeping"}}`}, 422, []string{"status.phase"}, `"Sleeping"`},
		{"a bad condition status", req{method: "PATCH", path: status, contentType: strategicPatch,
			body: `{"status":{"conditions":[{"type":"Ready","status":"Maybe"}]}}`}, 422, []string{"status.conditions[0].status"}, `"Maybe"`},
		{"a condition without a type", req{method: "PATCH", path: status, contentType: mergePatch,
			body: `{"status":{"conditions":[{"status":"True"}]}}`}, 422, []string{"status.conditions[0].type"}, "Required value"},
		{"a PUT of a Node", req{method: "PUT", path: status, body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"web"}}`},
			400, nil, `Node in version "v1" cannot be handled as a Pod`},
	})
	mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: status, contentType: mergePatch, body: `{"status":{"phase":"Running"}}`})
}

// TestConfigMapWritesAreValidated: a ConfigMap's labels and annotations
// follow the same rules as every object's.
func TestConfigMapWritesAreValidated(t *testing.T) {
	api, base := newValidationAPI(t)
	cm := validationCM + "/cfg"
	refuses(t, api, base, []rejection{
		{"a bad label key", req{method: "POST", path: validationCM,
			body: `{"metadata":{"name":"cfg-2","labels":{"-app":"web"}}}`}, 422, []string{"metadata.labels"}, "name part must consist"},
		{"a bad label value", req{method: "POST", path: validationCM,
			body: `{"metadata":{"name":"cfg-2","labels":{"app":"web site"}}}`}, 422, []string{"metadata.labels"}, "a valid label must be"},
		{"a bad annotation key", req{method: "POST", path: validationCM,
			body: `{"metadata":{"name":"cfg-2","annotations":{"bad key!":"x"}}}`}, 422, []string{"metadata.annotations"}, "name part must consist"},
		{"a Pod posted as a ConfigMap", req{method: "POST", path: validationCM,
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"cfg-2"}}`}, 400, nil, `Pod in version "v1" cannot be handled as a ConfigMap`},
		{"a PUT with a bad label value", req{method: "PUT", path: cm, body: current(t, base, cm, func(c *corev1.ConfigMap) {
			c.Labels["app"] = "web site"
		})}, 422, []string{"metadata.labels"}, "a valid label must be"},
		{"a patch with a bad annotation key", req{method: "PATCH", path: cm, contentType: mergePatch,
			body: `{"metadata":{"annotations":{"bad key!":"x"}}}`}, 422, []string{"metadata.annotations"}, "name part must consist"},
	})
}

// TestAgentRegistrationIsValidated: herd's own agents register with a
// Kubernetes Node, checked as one posted to /api/v1/nodes is.
func TestAgentRegistrationIsValidated(t *testing.T) {
	api, base := newValidationAPI(t)
	reg := "/apis/herd.dev/v1/nodes/web-02/registration"
	refuses(t, api, base, []rejection{
		{"a Pod as the registration", req{method: "PUT", path: reg,
			body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-02"}}`}, 422, []string{"kind"}, "must be Node"},
		{"a bad taint effect", req{method: "PUT", path: reg,
			body: nodeWith(`{"taints":[{"key":"dedicated","effect":"Sometimes"}]}`, `{}`)}, 422, []string{"spec.taints[0].effect"}, `"Sometimes"`},
		{"a negative capacity", req{method: "PUT", path: reg,
			body: nodeWith(`{}`, `{"capacity":{"pods":"-1"}}`)}, 422, []string{"status.capacity[pods]"}, "must be greater than or equal to 0"},
	})
}

// TestInvalidIsKubeApiserversStatus: a 422 is the Status kube-apiserver
// builds from the same field errors: the kind (not the resource) in its
// details, a cause per field with the cause type of its error, and the
// same message.
func TestInvalidIsKubeApiserversStatus(t *testing.T) {
	_, base := newValidationAPI(t)
	body := strings.Replace(podWith(t, `"restartPolicy":"Always"`, `"restartPolicy":"Whenever"`), `"name":"web","image"`, `"name":"","image"`, 1)
	a := mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "POST", path: validationPod, body: body})
	var got metav1.Status
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatal(err)
	}
	want := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "web-2", field.ErrorList{
		field.NotSupported(field.NewPath("spec", "restartPolicy"), "Whenever", []string{"Always", "Never", "OnFailure"}),
		field.Required(field.NewPath("spec", "containers").Index(0).Child("name"), ""),
	}).Status()
	if diff := cmp.Diff(want.Details, got.Details); diff != "" {
		t.Errorf("details (-kube-apiserver +herd):\n%s", diff)
	}

	a = mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "POST", path: validationPod,
		body: podWith(t, `"restartPolicy":"Always"`, `"restartPolicy":"Whenever"`)})
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatal(err)
	}
	want = apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "web-2", field.ErrorList{
		field.NotSupported(field.NewPath("spec", "restartPolicy"), "Whenever", []string{"Always", "Never", "OnFailure"}),
	}).Status()
	if got.Message != want.Message {
		t.Errorf("message %q, kube-apiserver says %q", got.Message, want.Message)
	}
}

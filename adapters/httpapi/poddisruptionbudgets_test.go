package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"herd/domain"
)

const pdbPath = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"

// pdbJSON is a budget of at most one web pod unavailable.
const pdbJSON = `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web"},` +
	`"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"web"}}}}`

// decodePDB reads an answer as a PodDisruptionBudget.
var decodePDB = decodeInto[policyv1.PodDisruptionBudget]

// readyWebPods creates running, ready pods labelled app=web in default,
// as their runtime would have reported them.
func readyWebPods(t *testing.T, api *testAPI, names ...string) {
	t.Helper()
	for _, name := range names {
		key := domain.Key{Namespace: "default", Name: name}
		for _, cmd := range []domain.PodCommand{
			domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Labels: map[string]string{"app": "web"},
				Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "nginx"}}}},
			domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning,
				Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}},
		} {
			if _, err := api.writer.PodCommands().Execute(t.Context(), key, cmd); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// countedStatus is the status the disruption reconciler would record of
// three healthy web pods under a budget that allows allowed disruptions.
func countedStatus(allowed int32) string {
	st := policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: allowed, CurrentHealthy: 3, DesiredHealthy: 3 - allowed, ExpectedPods: 3}
	body, _ := json.Marshal(map[string]any{"status": st})
	return string(body)
}

// TestPodDisruptionBudgetLifecycle: a budget is created, read, shown as
// kubectl get pdb shows it, given a status through its subresource,
// patched (a new generation) and deleted, over JSON; one with both
// bounds is refused as kube-apiserver refuses it, and appends nothing.
func TestPodDisruptionBudgetLifecycle(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	created := decodePDB(t, mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: pdbPath + "?fieldValidation=Strict", body: pdbJSON}))
	if created.UID == "" || created.Generation != 1 || created.Spec.MaxUnavailable.IntValue() != 1 || created.Spec.MinAvailable != nil {
		t.Fatalf("created %+v", created)
	}
	head := api.head(t)
	both := strings.Replace(pdbJSON, `"maxUnavailable":1`, `"maxUnavailable":1,"minAvailable":"50%"`, 1)
	both = strings.Replace(both, `"name":"web"`, `"name":"both"`, 1)
	if _, msg := mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "POST", path: pdbPath, body: both}).status(t); !strings.Contains(msg, "spec: minAvailable and maxUnavailable cannot be both set") {
		t.Errorf("both bounds: %q", msg)
	}
	bad := strings.Replace(pdbJSON, `"maxUnavailable":1`, `"minAvailable":"half"`, 1)
	if _, msg := mustSend(t, nil, base, http.StatusUnprocessableEntity, req{method: "POST", path: pdbPath, body: bad}).status(t); !strings.Contains(msg, "spec.minAvailable") {
		t.Errorf("a bound that is no percentage: %q", msg)
	}
	if h := api.head(t); h != head {
		t.Errorf("refusals moved the head from %d to %d", head, h)
	}

	withStatus := decodePDB(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: pdbPath + "/web/status", contentType: mergePatch, body: countedStatus(1)}))
	if withStatus.Status.DisruptionsAllowed != 1 || withStatus.Status.ExpectedPods != 3 {
		t.Errorf("status: %+v", withStatus.Status)
	}
	table := tableOf(t, base, pdbPath)
	var columns []string
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	if strings.Join(columns, ",") != "Name,Min Available,Max Unavailable,Allowed Disruptions,Age" || len(table.Rows) != 1 ||
		!equalCells(table.Rows[0].Cells[:4], []any{"web", "N/A", "1", float64(1)}) {
		t.Errorf("kubectl's table: %v %+v", columns, table.Rows)
	}

	patched := decodePDB(t, mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: pdbPath + "/web", contentType: mergePatch,
		body: `{"spec":{"maxUnavailable":null,"minAvailable":"50%"}}`}))
	if patched.Generation != 2 || patched.Spec.MinAvailable.String() != "50%" || patched.Spec.MaxUnavailable != nil || patched.Status.ObservedGeneration != 1 {
		t.Errorf("patched: generation %d, spec %+v", patched.Generation, patched.Spec)
	}
	mustSend(t, nil, base, http.StatusOK, req{method: "DELETE", path: pdbPath + "/web"})
	mustSend(t, nil, base, http.StatusNotFound, req{method: "GET", path: pdbPath + "/web"})
}

// TestEvictionRefusedByBudget: an eviction the budget allows goes
// through and spends it; the next is refused with kube-apiserver's 429,
// its message and the DisruptionBudget cause, and changes nothing.
func TestEvictionRefusedByBudget(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	readyWebPods(t, api, "web-a", "web-b", "web-c")
	mustSend(t, nil, base, http.StatusCreated, req{method: "POST", path: pdbPath, body: pdbJSON})
	mustSend(t, nil, base, http.StatusOK, req{method: "PATCH", path: pdbPath + "/web/status", contentType: mergePatch, body: countedStatus(1)})
	eviction := func(pod string) req {
		return req{method: "POST", path: "/api/v1/namespaces/default/pods/" + pod + "/eviction",
			body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + pod + `"}}`}
	}
	mustSend(t, nil, base, http.StatusCreated, eviction("web-a"))
	spent := decodePDB(t, mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: pdbPath + "/web"}))
	if spent.Status.DisruptionsAllowed != 0 || spent.Status.DisruptedPods["web-a"].Time.IsZero() {
		t.Errorf("the budget after the eviction: %+v", spent.Status)
	}
	head := api.head(t)
	a := mustSend(t, nil, base, http.StatusTooManyRequests, eviction("web-b"))
	var st metav1.Status
	if err := json.Unmarshal(a.body, &st); err != nil {
		t.Fatal(err)
	}
	if st.Reason != metav1.StatusReasonTooManyRequests || st.Message != "Cannot evict pod as it would violate the pod's disruption budget." ||
		st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != policyv1.DisruptionBudgetCause ||
		st.Details.Causes[0].Message != "The disruption budget web needs 2 healthy pods and has 3 currently" {
		t.Errorf("the refusal: %+v", st)
	}
	// kubectl drain --dry-run=server is refused alike.
	dry := eviction("web-b")
	dry.path += "?dryRun=All"
	mustSend(t, nil, base, http.StatusTooManyRequests, dry)
	if h := api.head(t); h != head {
		t.Errorf("a refused eviction moved the head from %d to %d", head, h)
	}
	if p := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/api/v1/namespaces/default/pods/web-b"}); strings.Contains(string(p.body), "deletionTimestamp") {
		t.Errorf("the refused eviction deleted the pod: %s", p.body)
	}
}

// TestPodDisruptionBudgetsThroughClientGo: client-go's typed clientset,
// in its default protobuf, creates and reads a budget, and its EvictV1
// gets 429 once the budget is spent.
func TestPodDisruptionBudgetsThroughClientGo(t *testing.T) {
	api := newTestAPI(t, nil)
	readyWebPods(t, api, "web-a", "web-b", "web-c")
	// The media types client-go sent budgets in, as the server saw them
	// (its eviction expansion sends JSON whatever the configuration).
	cs, sent := recordingClientset(t, api.serve(t).URL, func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/poddisruptionbudgets") })
	ctx := t.Context()
	pdbs := cs.PolicyV1().PodDisruptionBudgets("default")
	one := intstr.FromInt32(1)
	created, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}, metav1.CreateOptions{})
	if err != nil || created.Spec.MaxUnavailable.IntValue() != 1 || created.UID == "" {
		t.Fatalf("create: %+v, %v", created, err)
	}
	created.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3}
	if _, err := pdbs.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update status: %v", err)
	}
	list, err := pdbs.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Status.DisruptionsAllowed != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	podsOf := cs.CoreV1().Pods("default")
	if err := podsOf.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "web-a", Namespace: "default"}}); err != nil {
		t.Fatalf("the first eviction: %v", err)
	}
	err = podsOf.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "web-b", Namespace: "default"}})
	var status apierrors.APIStatus
	if !apierrors.IsTooManyRequests(err) || !errors.As(err, &status) || len(status.Status().Details.Causes) != 1 ||
		status.Status().Details.Causes[0].Type != policyv1.DisruptionBudgetCause {
		t.Errorf("the second eviction: %v, want 429 with the DisruptionBudget cause", err)
	}
	if p, err := podsOf.Get(ctx, "web-b", metav1.GetOptions{}); err != nil || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		t.Errorf("the pod the budget kept: %+v, %v", p.ObjectMeta, err)
	}
	for _, ct := range sent() {
		if ct != protobufType {
			t.Errorf("client-go sent a body as %q, want its default, protobuf", ct)
		}
	}
	if len(sent()) != 2 {
		t.Errorf("client-go sent %d budgets, want the create and the status", len(sent()))
	}
}

// TestPodDisruptionBudgetInCBOR: a budget posted in CBOR reads back in
// CBOR with its bounds, as kube-apiserver speaks it.
func TestPodDisruptionBudgetInCBOR(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	const cbor = "application/cbor"
	half := intstr.FromString("50%")
	in := &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &half, Selector: &metav1.LabelSelector{}},
	}
	if e := exchange(t, base, "POST", pdbPath, cbor, cbor, encode(t, cbor, in)); e.code != http.StatusCreated {
		t.Fatalf("create in CBOR: %d %q", e.code, e.body)
	}
	var got policyv1.PodDisruptionBudget
	decode(t, exchange(t, base, "GET", pdbPath+"/web", "", cbor, nil), cbor, &got)
	if got.Spec.MinAvailable.String() != "50%" || got.Spec.Selector == nil || got.Spec.MaxUnavailable != nil {
		t.Errorf("read back in CBOR: %+v", got.Spec)
	}
}

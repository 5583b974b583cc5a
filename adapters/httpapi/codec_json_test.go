package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// codecObjects are objects of the kinds herd answers with, filled with
// what tends to trip an encoder: quantities, times (micro ones too),
// int-or-strings, HTML and line separators in strings, empty and nil
// maps and slices, embedded objects in a Table.
func codecObjects() []runtime.Object {
	now := metav1.NewTime(t0)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "u-1", ResourceVersion: "42", CreationTimestamp: now,
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "<b>&\u2028\u2029</b>", "empty": ""},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "rs", Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: "n1", TerminationGracePeriodSeconds: ptr.To[int64](30),
			Containers: []corev1.Container{{Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("1.5Gi")}},
				Ports: []corev1.ContainerPort{{ContainerPort: 80}}}},
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}},
			Volumes:     []corev1.Volume{}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7", StartTime: &now,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}},
	}
	table := &metav1.Table{
		ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name"}, {Name: "Age", Type: "string"}},
		Rows: []metav1.TableRow{{Cells: []any{"web-1", "5m", int64(3), 1.5, true, nil},
			Object: runtime.RawExtension{Raw: []byte(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web-1"}}`)}}},
	}
	return []runtime.Object{
		benchNode("n1"),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bare", Labels: map[string]string{}}},
		&corev1.NodeList{ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "abc"}, Items: []corev1.Node{*benchNode("n2")}},
		pod,
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n1", Namespace: "kube-node-lease"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("n1"), LeaseDurationSeconds: ptr.To[int32](40),
				RenewTime: &metav1.MicroTime{Time: t0.Add(123456 * 1000)}}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 3},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: pod.Spec}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"},
			Data: map[string]string{"b": "\"quoted\" \\ \t\n", "a": "\u00e9\U0001F600"}, BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}}},
		&eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "default"}, EventTime: metav1.NewMicroTime(t0),
			Regarding: corev1.ObjectReference{Kind: "Node", Name: "n1"}, Reason: "NodeNotReady", Note: "<none>", Type: "Normal"},
		&policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default"}, DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}},
		&metav1.Status{Status: metav1.StatusFailure, Message: `nodes "x" not found`, Reason: metav1.StatusReasonNotFound, Code: 404,
			Details: &metav1.StatusDetails{Name: "x", Kind: "nodes", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec"}}}},
		table,
	}
}

// TestJSONAnswersAreApimachinerysBytes: herd encodes JSON answers with
// goccy/go-json; every kind it answers with comes out byte for byte as
// apimachinery's JSON serializer writes it, and the object's own kind is
// left as it was.
func TestJSONAnswersAreApimachinerysBytes(t *testing.T) {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON serializer")
	}
	for _, obj := range codecObjects() {
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			before := obj.GetObjectKind().GroupVersionKind()
			var want, got bytes.Buffer
			if err := codecs.WithoutConversion().EncoderForVersion(info.Serializer, nil).Encode(obj, &want); err != nil {
				t.Fatal(err)
			}
			if err := encodeJSON(obj, &got); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("herd's JSON differs from apimachinery's:\n got %s\nwant %s", got.String(), want.String())
			}
			if !strings.Contains(got.String(), `"kind":`) {
				t.Errorf("no kind in %s", got.String())
			}
			if after := obj.GetObjectKind().GroupVersionKind(); after != before {
				t.Errorf("the object's kind was left as %v, was %v", after, before)
			}
			// The watch hub's Encode: each object's bytes in lists and
			// watch events.
			std, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			if fast, err := gojson.Marshal(obj); err != nil || !bytes.Equal(fast, std) {
				t.Errorf("goccy/go-json's Marshal differs from encoding/json's (%v):\n got %s\nwant %s", err, fast, std)
			}
		})
	}
}

// TestJSONBodiesDecodeAsEncodingJSONDoes: herd decodes request bodies with
// goccy/go-json; each body decodes to what encoding/json makes of it, and
// a body encoding/json refuses (strictly or not) is refused too, an
// unknown field with encoding/json's own words.
func TestJSONBodiesDecodeAsEncodingJSONDoes(t *testing.T) {
	bodies := []string{
		`{"status":{"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-11-27T10:00:00Z","reason":"KubeletReady"}],` +
			`"capacity":{"cpu":"4","memory":"16Gi"},"nodeInfo":{"kubeletVersion":"v1.37.2"},"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}`,
		`{"metadata":{"name":"web-1","labels":{"app":"web"},"annotations":{"a":"\u003cb\u003e \ud83d\ude00"}},"spec":{"containers":[{"name":"c","image":"nginx",` +
			`"resources":{"requests":{"cpu":"250m"}}}],"tolerations":[{"operator":"Exists","tolerationSeconds":300}]}}`,
		`{"spec":{"replicas":3,"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}}}}`,
		`{"spec":{"renewTime":"2026-11-27T10:00:00.123456Z","holderIdentity":"n1"}}`,
		`{"Status":{"Phase":"Running"}}`,       // keys in another case
		`{"metadata":{"name":"x"},"dta":{}}`,   // an unknown field
		`{"status":{"capacity":{"cpu":"4x"}}}`, // a bad quantity
		`{"spec":{"replicas":"three"}}`,        // a wrong type
		`{"status":`,                           // cut short
		`null`,
		`{"metadata":{"name":"x"}} {"trailing":1}`,
	}
	targets := []func() any{
		func() any { return &corev1.Node{} }, func() any { return &corev1.Pod{} },
		func() any { return &appsv1.Deployment{} }, func() any { return &coordinationv1.Lease{} },
	}
	for _, strict := range []bool{false, true} {
		for _, body := range bodies {
			for _, target := range targets {
				want, got := target(), target()
				dec := json.NewDecoder(strings.NewReader(body))
				if strict {
					dec.DisallowUnknownFields()
				}
				wantErr := dec.Decode(want)
				path := "/x"
				if strict {
					path += "?fieldValidation=Strict"
				}
				gotErr := decodeJSON(httptest.NewRequestWithContext(t.Context(), "PUT", path, strings.NewReader(body)), got)
				switch {
				case (wantErr == nil) != (gotErr == nil):
					t.Errorf("strict %v, %T, %s: herd %v, encoding/json %v", strict, want, body, gotErr, wantErr)
				case wantErr == nil && !reflect.DeepEqual(want, got):
					t.Errorf("strict %v, %T, %s: herd decoded\n%+v\nencoding/json\n%+v", strict, want, body, got, want)
				case wantErr != nil && strings.Contains(wantErr.Error(), "unknown field") && !strings.Contains(gotErr.Error(), wantErr.Error()):
					t.Errorf("strict %v, %T, %s: herd says %q, encoding/json %q", strict, want, body, gotErr, wantErr)
				}
			}
		}
	}
}

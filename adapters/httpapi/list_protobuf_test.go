package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/projections/watch"
)

// TestProtobufListsAreApimachinerysBytes: a list in protobuf (what
// client-go asks for) carries exactly the bytes apimachinery's serializer
// writes for the same list, for nodes, a namespace's pods, leases and
// ConfigMaps, whole and in pages; its items are the objects a JSON list
// shows; and a node changed between two lists is shown as it is now,
// not as the first list rendered it.
func TestProtobufListsAreApimachinerysBytes(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	for i := range 3 {
		want(t, exchange(t, a.url, "POST", "/api/v1/nodes", protobufType, protobufType, encode(t, protobufType, testNode(fmt.Sprintf("n%d", i)))), http.StatusCreated)
		pod := testPod(fmt.Sprintf("p%d", i))
		pod.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80}}
		want(t, exchange(t, a.url, "POST", "/api/v1/namespaces/default/pods", protobufType, protobufType, encode(t, protobufType, pod)), http.StatusCreated)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)}, Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"b": {0, 255}}}
		want(t, exchange(t, a.url, "POST", "/api/v1/namespaces/default/configmaps", protobufType, protobufType, encode(t, protobufType, cm)), http.StatusCreated)
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("l%d", i)}}
		want(t, exchange(t, a.url, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", protobufType, protobufType, encode(t, protobufType, lease)), http.StatusCreated)
	}
	for _, tc := range []struct {
		path  string
		list  func() runtime.Object
		items func(runtime.Object) int
	}{
		{"/api/v1/nodes", func() runtime.Object { return &corev1.NodeList{} }, func(l runtime.Object) int { return len(l.(*corev1.NodeList).Items) }},
		{"/api/v1/nodes?limit=2", func() runtime.Object { return &corev1.NodeList{} }, func(l runtime.Object) int { return len(l.(*corev1.NodeList).Items) }},
		{"/api/v1/namespaces/default/pods", func() runtime.Object { return &corev1.PodList{} }, func(l runtime.Object) int { return len(l.(*corev1.PodList).Items) }},
		{"/api/v1/namespaces/default/configmaps", func() runtime.Object { return &corev1.ConfigMapList{} }, func(l runtime.Object) int { return len(l.(*corev1.ConfigMapList).Items) }},
		{"/apis/coordination.k8s.io/v1/namespaces/default/leases", func() runtime.Object { return &coordinationv1.LeaseList{} }, func(l runtime.Object) int { return len(l.(*coordinationv1.LeaseList).Items) }},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e := exchange(t, a.url, "GET", tc.path, "", protobufType, nil)
			want(t, e, http.StatusOK)
			got := tc.list()
			decode(t, e, protobufType, got)
			if n := tc.items(got); n == 0 {
				t.Fatal("the list is empty")
			}
			if again := encode(t, protobufType, got); !bytes.Equal(again, e.body) {
				t.Errorf("herd's protobuf list differs from apimachinery's encoding of what it decodes to:\n got %q\nwant %q", e.body, again)
			}
			fromJSON := tc.list()
			decode(t, exchange(t, a.url, "GET", tc.path, "", runtime.ContentTypeJSON, nil), runtime.ContentTypeJSON, fromJSON)
			// Items in JSON carry their kind and apiVersion; protobuf has
			// no place for them.
			if diff := cmp.Diff(fromJSON, got, cmpopts.IgnoreTypes(metav1.TypeMeta{})); diff != "" {
				t.Errorf("the protobuf list (+) and the JSON list (-) differ:\n%s", diff)
			}
		})
	}

	var n corev1.Node
	decode(t, exchange(t, a.url, "GET", "/api/v1/nodes/n1", "", protobufType, nil), protobufType, &n)
	n.Labels["zone"] = "b"
	want(t, exchange(t, a.url, "PUT", "/api/v1/nodes/n1", protobufType, protobufType, encode(t, protobufType, &n)), http.StatusOK)
	var nodes corev1.NodeList
	decode(t, exchange(t, a.url, "GET", "/api/v1/nodes", "", protobufType, nil), protobufType, &nodes)
	if len(nodes.Items) != 3 || nodes.Items[1].Labels["zone"] != "b" || nodes.Items[1].ResourceVersion == n.ResourceVersion {
		t.Errorf("after relabelling n1 the list shows %v at %s", nodes.Items[1].Labels, nodes.Items[1].ResourceVersion)
	}
}

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestClientGoNamespacesAndLeases: client-go's default clientset
// (protobuf) creates, reads, lists and watches a namespace and creates,
// reads, updates, patches, lists and watches a lease; a pod in a
// namespace that does not exist is refused with 404 and writes nothing;
// deleting the namespace empties it (its pod and ConfigMap go), refuses
// new pods in it meanwhile with 403, and then removes it: its watcher sees
// it MODIFIED (Terminating), then DELETED.
func TestClientGoNamespacesAndLeases(t *testing.T) {
	t.Parallel()
	rec, token := startHerdWithToken(t)
	cs := newClientset(t, &rest.Config{Host: rec.URL, BearerToken: token})
	ctx := t.Context()

	// A pod in a namespace that does not exist: 404, the log unchanged.
	head := logHead(t, rec.URL, token)
	_, err := cs.CoreV1().Pods("shop").Create(ctx, e2ePod("web", ""), metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `namespaces "shop" not found`) {
		t.Fatalf("pod in a missing namespace: %v, want namespaces \"shop\" not found", err)
	}
	if after := logHead(t, rec.URL, token); after != head {
		t.Fatalf("a refused pod moved the log head from %s to %s", head, after)
	}

	nss := cs.CoreV1().Namespaces()
	ns, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"team": "web"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	nw, err := nss.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=shop", ResourceVersion: ns.ResourceVersion})
	if err != nil {
		t.Fatalf("watch namespaces: %v", err)
	}
	defer nw.Stop()
	if got, err := nss.Get(ctx, "shop", metav1.GetOptions{}); err != nil || got.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("get namespace: %+v %v", got, err)
	}
	if list, err := nss.List(ctx, metav1.ListOptions{LabelSelector: "team=web"}); err != nil || len(list.Items) != 1 {
		t.Fatalf("list namespaces: %+v %v", list, err)
	}
	if err := nss.Delete(ctx, "kube-system", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("delete kube-system: %v, want Forbidden", err)
	}

	exerciseLeases(t, cs, "worker-1")

	// The namespace holds a pod that a finalizer keeps (as a controller
	// would until it has cleaned up) and a ConfigMap.
	held := e2ePod("web", "")
	held.Finalizers = []string{"example.com/cleanup"}
	if _, err := cs.CoreV1().Pods("shop").Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	if _, err := cs.CoreV1().ConfigMaps("shop").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create configmap: %v", err)
	}
	if err := nss.Delete(ctx, "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete namespace: %v", err)
	}
	_, err = cs.CoreV1().Pods("shop").Create(ctx, e2ePod("late", ""), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "unable to create new content in namespace shop because it is being terminated") ||
		!apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		t.Fatalf("pod in a terminating namespace: %v, want Forbidden with the cause NamespaceTerminating", err)
	}
	eventually(t, watchTimeout, func() error {
		cms, err := cs.CoreV1().ConfigMaps("shop").List(ctx, metav1.ListOptions{})
		switch {
		case err != nil:
			return fmt.Errorf("ConfigMaps in shop: %w", err)
		case len(cms.Items) != 0:
			return fmt.Errorf("ConfigMaps in shop: %d, want none", len(cms.Items))
		}
		p, err := cs.CoreV1().Pods("shop").Get(ctx, "web", metav1.GetOptions{})
		switch {
		case err != nil:
			return fmt.Errorf("pod shop/web: %w", err)
		case p.DeletionTimestamp == nil:
			return fmt.Errorf("pod shop/web is not terminating")
		}
		return nil
	})
	// The controller is done: it lifts its finalizer, and the pod goes.
	if _, err := cs.CoreV1().Pods("shop").Patch(ctx, "web", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("lift the finalizer: %v", err)
	}
	awaitEvents(t, nw, watch.Modified, watch.Deleted)
	eventually(t, watchTimeout, func() error {
		if _, err := nss.Get(ctx, "shop", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace shop is still there (%v)", err) //nolint:errorlint // nil while it exists; only shown
		}
		return nil
	})
	expectExchanges(t, rec, protobufWire, []string{"leases"}, []string{"namespaces"})
}

// exerciseLeases creates, reads, updates, patches, lists and watches the
// lease of node name as a kubelet keeps it.
func exerciseLeases(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	ctx := t.Context()
	leases := cs.CoordinationV1().Leases("kube-node-lease")
	holder, d := name, int32(40)
	now := metav1.NewMicroTime(time.Now())
	l, err := leases.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"step": "created"}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, RenewTime: &now},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create lease: %v", err)
	}
	lw, err := leases.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: l.ResourceVersion})
	if err != nil {
		t.Fatalf("watch leases: %v", err)
	}
	defer lw.Stop()
	if l, err = leases.Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Fatalf("get lease: %v", err)
	}
	l.Labels["step"] = "updated"
	if _, err = leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update lease: %v", err)
	}
	awaitLabel(t, lw, "step", "updated")
	if _, err = leases.Patch(ctx, name, types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"step":"patched"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch lease: %v", err)
	}
	awaitLabel(t, lw, "step", "patched")
	if list, err := leases.List(ctx, metav1.ListOptions{}); err != nil || !slices.ContainsFunc(list.Items, func(l coordinationv1.Lease) bool { return l.Name == name }) {
		t.Fatalf("list leases: %v %v", list, err)
	}
}

// TestALeaseKeepsANodeReady: with short health timings, a node whose
// lease is renewed (as a kubelet renews it, through client-go) stays
// Ready past the grace period while a node without renewals goes
// NotReady; kubectl lists the leases and shows the node's lease in
// describe node.
func TestALeaseKeepsANodeReady(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{
		"--node-monitor-period", "100ms", "--node-monitor-grace-period", "2s", "--node-startup-grace-period", "2s",
	}})
	cs := newClientset(t, &rest.Config{Host: srv.URL})
	ctx := t.Context()
	for _, name := range []string{"renewing", "silent"} {
		if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	leases := cs.CoordinationV1().Leases("kube-node-lease")
	holder, d := "renewing", int32(40)
	now := metav1.NewMicroTime(time.Now())
	if _, err := leases.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "renewing"},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, RenewTime: &now},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	renewCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	defer func() { stop(); <-done }()
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-renewCtx.Done():
				return
			case <-tick.C:
			}
			l, err := leases.Get(renewCtx, "renewing", metav1.GetOptions{})
			if err == nil {
				t := metav1.NewMicroTime(time.Now())
				l.Spec.RenewTime = &t
				_, err = leases.Update(renewCtx, l, metav1.UpdateOptions{})
			}
			if err != nil && renewCtx.Err() == nil && !apierrors.IsConflict(err) {
				t.Errorf("renew lease: %v", err)
			}
		}
	}()

	eventually(t, 20*time.Second, func() error {
		silent, err := cs.CoreV1().Nodes().Get(ctx, "silent", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if nodeReady(*silent) {
			return fmt.Errorf("silent is still Ready")
		}
		return nil
	})
	// The silent node went NotReady after the grace period; the renewing
	// one, as old, is Ready still.
	renewing, err := cs.CoreV1().Nodes().Get(ctx, "renewing", metav1.GetOptions{})
	if err != nil || !nodeReady(*renewing) {
		t.Fatalf("renewing node %+v %v, want it Ready", renewing.Status.Conditions, err)
	}

	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	kc := newKubectl(t, srv.URL)
	if _, rows := table(t, kc.must(t, "get", "ns")); !slices.Contains(names(rows), "kube-node-lease") {
		t.Errorf("kubectl get ns: %v", names(rows))
	}
	header, rows := table(t, kc.must(t, "get", "leases", "-n", "kube-node-lease"))
	if !slices.Equal(header, []string{"NAME", "HOLDER", "AGE"}) || columnByName(rows, 1)["renewing"] != "renewing" {
		t.Errorf("kubectl get leases: %v %v", header, rows)
	}
	out := kc.must(t, "describe", "node", "renewing")
	for _, want := range []string{"Lease:", "HolderIdentity:  renewing", "RenewTime:"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl describe node renewing has no %q:\n%s", want, out)
		}
	}
	// The silent node keeps no lease: herd derives one from its last
	// heartbeat.
	if out := kc.must(t, "describe", "node", "silent"); !strings.Contains(out, "HolderIdentity:  silent") {
		t.Errorf("kubectl describe node silent shows no lease:\n%s", out)
	}
	manifest := filepath.Join(t.TempDir(), "lease.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: leader\n  namespace: default\nspec:\n  holderIdentity: me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := kc.must(t, "create", "-f", manifest); !strings.Contains(out, "lease.coordination.k8s.io/leader created") {
		t.Errorf("kubectl create -f lease.yaml said %q", out)
	}
	kc.must(t, "create", "ns", "lab")
	if out := kc.must(t, "delete", "ns", "lab"); !strings.Contains(out, `namespace "lab" deleted`) {
		t.Errorf("kubectl delete ns said %q", out)
	}
}

// e2ePod is a one-container pod, bound to node when it is not "".
func e2ePod(name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

// createNamespace creates a namespace for a test's pods and ConfigMaps:
// herd refuses them in a namespace that does not exist.
func createNamespace(t *testing.T, base, name string) {
	t.Helper()
	mustCall(t, http.StatusCreated, http.MethodPost, base+"/api/v1/namespaces", map[string]any{"metadata": map[string]string{"name": name}}, nil)
}

// logHead is the log's head: the resourceVersion of a list.
func logHead(t *testing.T, base, token string) string {
	t.Helper()
	cs := newClientset(t, &rest.Config{Host: base, BearerToken: token})
	l, err := cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.ResourceVersion
}

// awaitEvents reads w until it has seen each of types, in order.
func awaitEvents(t *testing.T, w watch.Interface, types ...watch.EventType) {
	t.Helper()
	timeout := time.After(watchTimeout)
	for len(types) > 0 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended before %v", types)
			}
			if ev.Type == types[0] {
				types = types[1:]
			}
		case <-timeout:
			t.Fatalf("no %v in %s", types, watchTimeout)
		}
	}
}

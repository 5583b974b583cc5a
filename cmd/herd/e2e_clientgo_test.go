package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// The environment a child test process of TestClientGoPreferringCBOR
// reads: where herd is (behind the recording proxy) and its token.
const (
	envCBORChildURL   = "E2E_CLIENTGO_CBOR_URL"
	envCBORChildToken = "E2E_CLIENTGO_CBOR_TOKEN"
)

// exchange is one request as it crossed the wire: its method, the
// resource its path names, whether it was a watch, and the media types of
// its body and of the answer's.
type exchange struct {
	method, resource, path, sent, answered string
	watch                                  bool
}

// recorder is a reverse proxy on a loopback port in front of herd that
// records the media types of every request and answer, so that a test
// knows what a client really sent and what herd really answered.
type recorder struct {
	URL string
	mu  sync.Mutex
	log []exchange
}

func newRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1 // watches stream
	proxy.ModifyResponse = func(resp *http.Response) error {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		req := resp.Request
		rec.log = append(rec.log, exchange{
			method: req.Method, resource: resourceOf(req.URL.Path), path: req.URL.Path,
			watch:    req.URL.Query().Get("watch") == "true",
			sent:     mediaTypeOf(req.Header.Get("Content-Type")),
			answered: resp.Header.Get("Content-Type"),
		})
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	rec.URL = srv.URL
	return rec
}

func mediaTypeOf(ct string) string { return strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]) }

// resourceOf is the resource an API path names: "pods" for
// /api/v1/namespaces/default/pods/web, "namespaces" for
// /api/v1/namespaces/shop, "leases" for
// /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1; ""
// for a path outside the API.
func resourceOf(path string) string {
	var rest string
	switch {
	case strings.HasPrefix(path, "/api/v1/"):
		rest = strings.TrimPrefix(path, "/api/v1/")
	case strings.HasPrefix(path, "/apis/"):
		// /apis/GROUP/VERSION/...
		parts := strings.SplitN(strings.TrimPrefix(path, "/apis/"), "/", 3)
		if len(parts) < 3 {
			return ""
		}
		rest = parts[2]
	default:
		return ""
	}
	segs := strings.Split(rest, "/")
	if segs[0] == "namespaces" && len(segs) >= 3 {
		return segs[2]
	}
	return segs[0]
}

// seen says whether some exchange matched.
func (r *recorder) seen(match func(exchange) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.log, match)
}

func (r *recorder) dump() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.log {
		fmt.Fprintf(&b, "%s %s (%s, watch %t) sent %q answered %q\n", e.method, e.path, e.resource, e.watch, e.sent, e.answered)
	}
	return b.String()
}

// wire is what a client's traffic must have been in: bodies sent in Sent,
// answers in Answered, watches streamed as Stream.
type wire struct{ Sent, Answered, Stream string }

// The wire of client-go's default clientset, and of one preferring CBOR.
var (
	protobufWire = wire{runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf, "application/vnd.kubernetes.protobuf;stream=watch"}
	cborWire     = wire{runtime.ContentTypeCBOR, runtime.ContentTypeCBOR, runtime.ContentTypeCBORSequence}
)

// clientsetResources are the resources exerciseClientset writes: each is
// created (POST), updated (PUT), patched, got, listed and watched.
var clientsetResources = []string{"nodes", "pods", "configmaps", "leases", "namespaces"}

// expectExchanges fails the test unless, for each of resources, a body
// was POSTed and PUT in w.Sent and answered in w.Answered, a PATCH and a
// GET were answered in w.Answered, and a watch streamed as w.Stream; and
// for each of watched (such as events, which client-go's informer lists
// through a watch of its own) a watch streamed as w.Stream.
func expectExchanges(t *testing.T, rec *recorder, w wire, resources, watched []string) {
	t.Helper()
	answered := func(e exchange) bool { return mediaTypeOf(e.answered) == w.Answered }
	for _, res := range resources {
		for _, method := range []string{"POST", "PUT"} {
			if !rec.seen(func(e exchange) bool {
				return e.resource == res && e.method == method && e.sent == w.Sent && answered(e)
			}) {
				t.Errorf("no %s of %s sent in %s and answered in %s", method, res, w.Sent, w.Answered)
			}
		}
		if !rec.seen(func(e exchange) bool { return e.resource == res && e.method == "PATCH" && answered(e) }) {
			t.Errorf("no PATCH of %s answered in %s", res, w.Answered)
		}
		if !rec.seen(func(e exchange) bool { return e.resource == res && e.method == "GET" && !e.watch && answered(e) }) {
			t.Errorf("no GET of %s answered in %s", res, w.Answered)
		}
	}
	for _, res := range slices.Concat(resources, watched) {
		if !rec.seen(func(e exchange) bool {
			return e.resource == res && e.method == "GET" && e.watch && e.answered == w.Stream
		}) {
			t.Errorf("no watch of %s streamed as %s", res, w.Stream)
		}
	}
	if t.Failed() {
		t.Logf("what crossed the wire:\n%s", rec.dump())
	}
}

// startHerdWithToken starts herd with an administrator's token and the
// recording proxy in front of it.
func startHerdWithToken(t *testing.T) (*recorder, string) {
	t.Helper()
	dir := t.TempDir()
	tokens := writeTokens(t, dir, "admin-token,alice,1,herd:admins")
	srv := startServe(t, serveOptions{Args: []string{"--token-auth-file", tokens}})
	return newRecorder(t, srv.URL), "admin-token"
}

// TestClientGoDefaultClientset: client-go's typed clientset, configured
// with nothing but herd's address and a token, sends nodes, pods,
// ConfigMaps, leases and namespaces in protobuf and reads herd's protobuf
// answers and watches: create, get, update, patch, list and watch each of
// them; and its Events informer sees a pod's Scheduled event.
func TestClientGoDefaultClientset(t *testing.T) {
	t.Parallel()
	rec, token := startHerdWithToken(t)
	cs := newClientset(t, &rest.Config{Host: rec.URL, BearerToken: token})
	exerciseClientset(t, cs, "pb")
	expectExchanges(t, rec, protobufWire, clientsetResources, []string{"events"})
}

// TestClientGoPreferringCBOR: the same with client-go's CBOR feature gates
// on (KUBE_FEATURE_ClientsAllowCBOR and KUBE_FEATURE_ClientsPreferCBOR),
// which client-go reads from the environment once per process: a child
// test process runs the clients. The typed clientset still prefers
// protobuf for built-in kinds unless told CBOR, so the child uses it with
// ContentType CBOR and the dynamic client, which prefers CBOR by itself.
func TestClientGoPreferringCBOR(t *testing.T) {
	t.Parallel()
	rec, token := startHerdWithToken(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*watchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestClientGoCBORChild$", "-test.v") //nolint:gosec // this test binary, running one of its own tests
	cmd.Env = append(os.Environ(),
		"KUBE_FEATURE_ClientsAllowCBOR=true", "KUBE_FEATURE_ClientsPreferCBOR=true",
		envCBORChildURL+"="+rec.URL, envCBORChildToken+"="+token)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestClientGoCBORChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	expectExchanges(t, rec, cborWire, clientsetResources, []string{"events"})
}

// TestClientGoCBORChild is TestClientGoPreferringCBOR's child process; on
// its own it has nothing to do.
func TestClientGoCBORChild(t *testing.T) {
	base, token := os.Getenv(envCBORChildURL), os.Getenv(envCBORChildToken)
	if base == "" {
		t.Skip("run by TestClientGoPreferringCBOR")
	}
	cs := newClientset(t, &rest.Config{Host: base, BearerToken: token, ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeCBOR}})
	exerciseClientset(t, cs, "cbor")
	dc, err := dynamic.NewForConfig(&rest.Config{Host: base, BearerToken: token})
	if err != nil {
		t.Fatal(err)
	}
	exerciseDynamic(t, dc)
}

// exerciseClientset creates, reads, updates, patches, lists and watches a
// node, a pod, a ConfigMap, a lease and a namespace, names ending in
// suffix, and keeps an informer of Events that sees a pod's Scheduled
// event.
func exerciseClientset(t *testing.T, cs kubernetes.Interface, suffix string) {
	t.Helper()
	ctx := t.Context()
	nodes := cs.CoreV1().Nodes()
	node := "client-go-" + suffix
	n, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node, Labels: map[string]string{"step": "created"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create node: %v", err)
	}
	w, err := nodes.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + node, ResourceVersion: n.ResourceVersion})
	if err != nil {
		t.Fatalf("watch nodes: %v", err)
	}
	defer w.Stop()
	if n, err = nodes.Get(ctx, node, metav1.GetOptions{}); err != nil {
		t.Fatalf("get node: %v", err)
	}
	n.Labels["step"] = "updated"
	if _, err = nodes.Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update node: %v", err)
	}
	awaitLabel(t, w, "step", "updated")
	if _, err = nodes.Patch(ctx, node, types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"step":"patched"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch node: %v", err)
	}
	awaitLabel(t, w, "step", "patched")
	if list, err := nodes.List(ctx, metav1.ListOptions{}); err != nil || !slices.ContainsFunc(list.Items, func(n corev1.Node) bool { return n.Name == node }) {
		t.Fatalf("list nodes: %v %v", list, err)
	}

	pods := cs.CoreV1().Pods("default")
	pod := "client-go-" + suffix
	p, err := pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: pod, Labels: map[string]string{"step": "created"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod: %v", err)
	}
	pw, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + pod, ResourceVersion: p.ResourceVersion})
	if err != nil {
		t.Fatalf("watch pods: %v", err)
	}
	defer pw.Stop()
	// herd's scheduler may bind the pod meanwhile: update as a client
	// does, again on a conflict.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := pods.Get(ctx, pod, metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Labels["step"] = "updated"
		_, err = pods.Update(ctx, p, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatalf("update pod: %v", err)
	}
	awaitLabel(t, pw, "step", "updated")
	if _, err = pods.Patch(ctx, pod, types.MergePatchType, []byte(`{"metadata":{"labels":{"step":"patched"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch pod: %v", err)
	}
	awaitLabel(t, pw, "step", "patched")
	if list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "step=patched"}); err != nil || len(list.Items) == 0 {
		t.Fatalf("list pods: %v %v", list, err)
	}

	cms := cs.CoreV1().ConfigMaps("default")
	cmName := "client-go-" + suffix
	c, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cmName, Labels: map[string]string{"step": "created"}}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create configmap: %v", err)
	}
	cw, err := cms.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + cmName, ResourceVersion: c.ResourceVersion})
	if err != nil {
		t.Fatalf("watch configmaps: %v", err)
	}
	defer cw.Stop()
	if c, err = cms.Get(ctx, cmName, metav1.GetOptions{}); err != nil {
		t.Fatalf("get configmap: %v", err)
	}
	c.Labels["step"] = "updated"
	if _, err = cms.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update configmap: %v", err)
	}
	awaitLabel(t, cw, "step", "updated")
	if _, err = cms.Patch(ctx, cmName, types.JSONPatchType, []byte(`[{"op":"replace","path":"/metadata/labels/step","value":"patched"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch configmap: %v", err)
	}
	awaitLabel(t, cw, "step", "patched")
	if list, err := cms.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) == 0 {
		t.Fatalf("list configmaps: %v %v", list, err)
	}
	if err := cms.Delete(ctx, cmName, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete configmap: %v", err)
	}

	exerciseNamespaces(t, cs, "client-go-"+suffix)
	exerciseLeases(t, cs, "worker-"+suffix)
	exerciseEvents(t, cs, suffix)
}

// exerciseNamespaces creates, reads, updates, patches, lists and watches
// namespace name, as kubectl create, get, edit and label do.
func exerciseNamespaces(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	ctx := t.Context()
	nss := cs.CoreV1().Namespaces()
	ns, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"step": "created"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	nw, err := nss.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: ns.ResourceVersion})
	if err != nil {
		t.Fatalf("watch namespaces: %v", err)
	}
	defer nw.Stop()
	if ns, err = nss.Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Fatalf("get namespace: %v", err)
	}
	ns.Labels["step"] = "updated"
	if _, err = nss.Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update namespace: %v", err)
	}
	awaitLabel(t, nw, "step", "updated")
	ns, err = nss.Patch(ctx, name, types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"step":"patched"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patch namespace: %v", err)
	}
	if ns.Labels[corev1.LabelMetadataName] != name || ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("patched namespace %v %s, want it Active with its name label", ns.Labels, ns.Status.Phase)
	}
	awaitLabel(t, nw, "step", "patched")
	if list, err := nss.List(ctx, metav1.ListOptions{LabelSelector: "step=patched"}); err != nil || len(list.Items) != 1 || list.Items[0].Name != name {
		t.Fatalf("list namespaces: %v %v", list, err)
	}
}

// exerciseDynamic does the same with the dynamic client, on nodes.
func exerciseDynamic(t *testing.T, dc dynamic.Interface) {
	t.Helper()
	ctx := t.Context()
	nodes := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"})
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": "dynamic-cbor", "labels": map[string]any{"step": "created"}},
	}}
	n, err := nodes.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("dynamic create node: %v", err)
	}
	w, err := nodes.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=dynamic-cbor", ResourceVersion: n.GetResourceVersion()})
	if err != nil {
		t.Fatalf("dynamic watch: %v", err)
	}
	defer w.Stop()
	if n, err = nodes.Get(ctx, "dynamic-cbor", metav1.GetOptions{}); err != nil {
		t.Fatalf("dynamic get: %v", err)
	}
	n.SetLabels(map[string]string{"step": "updated"})
	if _, err = nodes.Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("dynamic update: %v", err)
	}
	awaitLabel(t, w, "step", "updated")
	if _, err = nodes.Patch(ctx, "dynamic-cbor", types.MergePatchType, []byte(`{"metadata":{"labels":{"step":"patched"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("dynamic patch: %v", err)
	}
	awaitLabel(t, w, "step", "patched")
	if list, err := nodes.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) == 0 {
		t.Fatalf("dynamic list: %v %v", list, err)
	}
}

// awaitLabel reads w until an object carries label key=value.
func awaitLabel(t *testing.T, w watch.Interface, key, value string) {
	t.Helper()
	timeout := time.After(watchTimeout)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended before %s=%s", key, value)
			}
			if ev.Type == watch.Error {
				t.Fatalf("watch error: %#v", ev.Object)
			}
			m, ok := ev.Object.(metav1.Object)
			if ok && m.GetLabels()[key] == value {
				return
			}
		case <-timeout:
			t.Fatalf("no %s=%s in %s", key, value, watchTimeout)
		}
	}
}

package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/domain"
	"herd/projections/watch"
)

// benchNode is the Node a kubelet registers, with the four conditions it
// reports (the loadgen's kubelet).
func benchNode(name string) *corev1.Node {
	t := metav1.NewTime(t0)
	cond := func(typ corev1.NodeConditionType, status corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: typ, Status: status, LastHeartbeatTime: t, LastTransitionTime: t, Reason: reason, Message: msg}
	}
	res := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		}},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}},
			Capacity:  res, Allocatable: res,
		},
	}
}

// cpuTime is the process's user and system CPU so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDo sends a pre-encoded body and reads the answer without decoding
// it, so that the process's CPU is herd's, HTTP's and the log's; it
// returns the answer's size.
func benchDo(b *testing.B, c *http.Client, want int, method, url, ct, accept string, body []byte) int {
	req, err := http.NewRequestWithContext(b.Context(), method, url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Accept", accept)
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: %d, want %d", method, url, resp.StatusCode, want)
	}
	return int(n)
}

// BenchmarkNodeStatusHeartbeat measures a kubelet's heartbeat in each
// encoding over a kept-alive loopback connection: the strategic-merge
// PATCH of nodes/status the loadgen sends (a patch is JSON whatever the
// client prefers; the answer comes in the Accept's type) and client-go's
// UpdateStatus, a PUT of the whole Node in the encoding itself. cpu-ns/op
// is the whole process's CPU (herd's handler, the SQLite append, the
// client's HTTP) per request.
func BenchmarkNodeStatusHeartbeat(b *testing.B) {
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": benchNode("n").Status.Conditions}})
	if err != nil {
		b.Fatal(err)
	}
	for _, mt := range encodings {
		for _, verb := range []string{"PATCH", "PUT"} {
			b.Run(fmt.Sprintf("%s/%s", verb, mt), func(b *testing.B) {
				api := newTestAPI(b, nil)
				base := api.serve(b).URL
				c := &http.Client{}
				benchDo(b, c, http.StatusCreated, "POST", base+"/api/v1/nodes", mt, mt, encode(b, mt, benchNode("n1")))
				body, ct := patch, strategicPatch
				if verb == "PUT" {
					body, ct = encode(b, mt, benchNode("n1")), mt
				}
				url := base + "/api/v1/nodes/n1/status"
				cpu := cpuTime(b)
				b.ResetTimer()
				for b.Loop() {
					benchDo(b, c, http.StatusOK, verb, url, ct, mt, body)
				}
				b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkListTenThousandNodes measures a list of 10,000 nodes in each
// encoding: its time and its size on the wire.
func BenchmarkListTenThousandNodes(b *testing.B) {
	api := newTestAPI(b, nil)
	ctx := context.Background()
	for i := range 10000 {
		name := fmt.Sprintf("node-%05d", i)
		reg := domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux,
			Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}}}
		if _, err := api.writer.NodeCommands().Execute(ctx, domain.Key{Name: name}, domain.NodeSequence{reg,
			domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue, Reason: "KubeletReady"}}}}); err != nil {
			b.Fatal(err)
		}
	}
	base := api.serve(b).URL
	for _, mt := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf, runtime.ContentTypeCBOR} {
		b.Run(mt, func(b *testing.B) {
			c := &http.Client{}
			var size int
			for b.Loop() {
				size = benchDo(b, c, http.StatusOK, "GET", base+"/api/v1/nodes", "", mt, nil)
			}
			b.ReportMetric(float64(size), "bytes/list")
		})
	}
}

// BenchmarkNodeBodyCodec isolates what the encoding costs herd in a
// heartbeat sent as client-go's UpdateStatus: reading the Node body and
// writing the Node back, in each encoding, without HTTP or the log.
func BenchmarkNodeBodyCodec(b *testing.B) {
	for _, mt := range encodings {
		b.Run(mt, func(b *testing.B) {
			body := encode(b, mt, benchNode("n1"))
			info, _ := runtime.SerializerInfoForMediaType(servedTypes, mt)
			s := &Server{Deps: Deps{Logger: zap.NewNop()}}
			for b.Loop() {
				r := httptest.NewRequestWithContext(b.Context(), "PUT", "/api/v1/nodes/n1/status", bytes.NewReader(body))
				r.Header.Set("Content-Type", mt)
				var n corev1.Node
				if err := decodeObject(r, &n); err != nil {
					b.Fatal(err)
				}
				rec := &statusRecorder{ResponseWriter: httptest.NewRecorder(), code: http.StatusOK, out: output{info: info}}
				s.writeObject(rec, http.StatusOK, &n)
			}
			b.ReportMetric(float64(len(body)), "bytes/body")
		})
	}
}

// BenchmarkWatchFanOut measures one node's change reaching 20 watchers of
// nodes in each encoding, read and decoded by client-go's own watch
// decoder: herd encodes the change once per encoding and writes it to
// every watcher.
func BenchmarkWatchFanOut(b *testing.B) {
	const watchers = 20
	for _, mt := range encodings {
		b.Run(mt, func(b *testing.B) {
			a := newWatchAPI(b, watch.Config{})
			a.do(b, "n1", register("n1", nil))
			ws := make([]*binaryWatch, watchers)
			for i := range ws {
				ws[i] = openBinaryWatch(b, a.url, "/api/v1/nodes?watch=true&resourceVersion="+strconv.FormatInt(a.head(b), 10), mt, mt)
			}
			for b.Loop() {
				a.do(b, "n1", healthy())
				for _, w := range ws {
					if typ, _ := w.next(b); typ != "MODIFIED" {
						b.Fatalf("event %s, want MODIFIED", typ)
					}
				}
			}
		})
	}
}

// BenchmarkNodeRegistration measures a kubelet's start, as the loadgen
// sends it: the Node POSTed, its Lease read (herd derives one from the
// node) and PUT, which stores it. Each iteration registers a new node;
// cpu-ns/op is the whole process's CPU per registration.
func BenchmarkNodeRegistration(b *testing.B) {
	benchRegistrations(b, "application/json")
}

// benchRegistrations registers a new node with its Lease at each
// iteration, every body and answer in the media type mt.
func benchRegistrations(b *testing.B, mt string) {
	api := newTestAPI(b, nil)
	base := api.serve(b).URL
	c := &http.Client{}
	renew := metav1.NewMicroTime(time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC))
	cpu := cpuTime(b)
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("n%06d", i)
		i++
		benchDo(b, c, http.StatusCreated, "POST", base+"/api/v1/nodes", mt, mt, encode(b, mt, benchNode(name)))
		leaseURL := base + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + name
		benchDo(b, c, http.StatusOK, "GET", leaseURL, "", mt, nil)
		holder, secs := name, int32(40)
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-node-lease"},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &renew},
		}
		benchDo(b, c, http.StatusOK, "PUT", leaseURL, mt, mt, encode(b, mt, lease))
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}

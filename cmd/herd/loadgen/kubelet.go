package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// kubeletUserAgent is what a kubelet of the version the nodes report
// sends, marked as loadgen's.
const kubeletUserAgent = "kubelet/v1.34.0 (linux/amd64) herd-loadgen"

// kubeletClient speaks as a kubelet: POST of its Node, and a
// strategic-merge PATCH of its status with the four conditions a kubelet
// reports, each with a fresh lastHeartbeatTime.
type kubeletClient struct {
	cfg   Config
	token string
	// bases are the servers' URLs without a trailing slash, in the order
	// of cfg.Servers.
	bases []string
	names []string
	http  *http.Client
	// patch is the status patch cut at its timestamps: the pieces are
	// joined with the time of each heartbeat.
	patch []string
	// mediaType is what the node is registered in and answers are asked
	// for in.
	mediaType string
	// put says each heartbeat is a PUT of the whole Node to its status,
	// in mediaType, as client-go's UpdateStatus sends it.
	put bool
}

// stampPlaceholder stands for the heartbeat's time in a body rendered
// once; no real heartbeat carries it.
var stampPlaceholder = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

func newKubeletClient(cfg Config, names []string, hc *http.Client) (*kubeletClient, error) {
	st := struct {
		Status corev1.NodeStatus `json:"status"`
	}{corev1.NodeStatus{Conditions: kubeletConditions(stampPlaceholder)}}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	stamp, _ := json.Marshal(metav1.NewTime(stampPlaceholder))
	mt, ok := mediaTypes[cfg.Encoding]
	if !ok {
		mt = mediaTypes[EncodingJSON]
	}
	bases := make([]string, len(cfg.Servers))
	for s, server := range cfg.Servers {
		bases[s] = strings.TrimSuffix(server, "/")
	}
	return &kubeletClient{cfg: cfg, bases: bases, token: cfg.Token, names: names, http: hc,
		patch: strings.Split(string(data), string(stamp)), mediaType: mt, put: cfg.StatusUpdate == StatusUpdatePut}, nil
}

// kubeletConditions are what a healthy kubelet reports (its reasons and
// messages are the kubelet's own).
func kubeletConditions(now time.Time) []corev1.NodeCondition {
	t := metav1.NewTime(now)
	cond := func(typ corev1.NodeConditionType, status corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: typ, Status: status, LastHeartbeatTime: t, LastTransitionTime: t, Reason: reason, Message: msg}
	}
	return []corev1.NodeCondition{
		cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
	}
}

// node is the Node a kubelet registers.
func (k *kubeletClient) node(name string, now time.Time) corev1.Node {
	res := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	return corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		}},
		Status: corev1.NodeStatus{
			Conditions:  kubeletConditions(now),
			Addresses:   []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}},
			Capacity:    res,
			Allocatable: res,
			NodeInfo: corev1.NodeSystemInfo{MachineID: name, SystemUUID: name, BootID: "loadgen-boot", KernelVersion: "6.1.0",
				OSImage: "Debian GNU/Linux 12", ContainerRuntimeVersion: "containerd://1.7.0", KubeletVersion: "v1.34.0",
				OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
}

// register POSTs the node; one that exists (409) reports its status
// instead, as a restarted kubelet does.
func (k *kubeletClient) register(ctx context.Context, i int) outcome {
	n := k.node(k.names[i], time.Now())
	body, err := encodeAs(k.mediaType, &n)
	if err != nil {
		return outcome{err: err}
	}
	o := k.send(ctx, i, http.MethodPost, "/api/v1/nodes", k.mediaType, body)
	if o.status == http.StatusConflict {
		return k.heartbeat(ctx, i)
	}
	return o
}

func (k *kubeletClient) heartbeat(ctx context.Context, i int) outcome {
	path := "/api/v1/nodes/" + url.PathEscape(k.names[i]) + "/status"
	if k.put {
		// Unconditional (no resourceVersion), as a PUT from a client that
		// does not read its node back first.
		n := k.node(k.names[i], time.Now())
		body, err := encodeAs(k.mediaType, &n)
		if err != nil {
			return outcome{err: err}
		}
		return k.send(ctx, i, http.MethodPut, path, k.mediaType, body)
	}
	now, _ := json.Marshal(metav1.NewTime(time.Now()))
	body := []byte(strings.Join(k.patch, string(now)))
	return k.send(ctx, i, http.MethodPatch, path, "application/strategic-merge-patch+json", body)
}

func (k *kubeletClient) send(ctx context.Context, i int, method, path, contentType string, body []byte) outcome {
	o, _ := k.exchange(ctx, i, method, path, contentType, body, false)
	return o
}

// exchange sends a request of node i's kubelet to its server and, with
// keep, returns a 2xx answer's body too.
func (k *kubeletClient) exchange(ctx context.Context, i int, method, path, contentType string, body []byte, keep bool) (outcome, []byte) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, k.bases[k.cfg.server(i)]+path, rd)
	if err != nil {
		return outcome{err: err}, nil
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", k.mediaType)
	req.Header.Set("User-Agent", kubeletUserAgent)
	if k.token != "" {
		req.Header.Set("Authorization", "Bearer "+k.token)
	}
	o, answer := exchange(k.http, req, keep)
	if o.err == nil {
		o.err = answeredIn(o.contentType, k.mediaType)
	}
	return o, answer
}

// exchange sends req and reads the whole answer, so that the connection
// is reused; with keep, it returns a 2xx answer's body too.
//
// The outcome's queued is how long the request waited for a connection
// of the run's pool before it went out: a kubelet has a connection of its
// own, so that wait is the load tool's, not herd's.
func exchange(hc *http.Client, req *http.Request, keep bool) (outcome, []byte) {
	asked := time.Now()
	var queued time.Duration
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { queued = time.Since(asked) },
	}))
	o, answer := exchangeOnce(hc, req, keep)
	o.queued = queued
	return o, answer
}

// exchangeOnce is exchange but for the wait.
func exchangeOnce(hc *http.Client, req *http.Request, keep bool) (outcome, []byte) {
	resp, err := hc.Do(req)
	if err != nil {
		return outcome{err: err}, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		_, _ = io.Copy(io.Discard, resp.Body)
		return outcome{status: resp.StatusCode, retryAfter: retryAfter(resp.Header.Get("Retry-After")),
			err: &httpError{method: req.Method, path: req.URL.Path, status: resp.StatusCode, body: string(msg), contentType: resp.Header.Get("Content-Type")}}, nil
	}
	var answer []byte
	if keep {
		answer, err = io.ReadAll(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	if err != nil {
		return outcome{status: resp.StatusCode, err: err}, nil
	}
	return outcome{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type")}, answer
}

// retryAfter reads a Retry-After header in seconds, as kube-apiserver
// and herd write it; anything else is 1 s, what they say most often.
func retryAfter(h string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return time.Second
}

// httpError is a refusal, with what herd said.
type httpError struct {
	method, path string
	status       int
	body         string
	contentType  string
}

// Error gives the message of the Status herd answered, in whichever
// encoding it came (a kubelet's refusals come in protobuf).
func (e *httpError) Error() string {
	var st metav1.Status
	var decoded error
	switch mt, _, _ := mime.ParseMediaType(e.contentType); mt {
	case runtime.ContentTypeProtobuf, runtime.ContentTypeCBOR:
		decoded = decodeAs(mt, []byte(e.body), &st)
	default:
		decoded = json.Unmarshal([]byte(e.body), &st)
	}
	if decoded == nil && st.Message != "" {
		return e.method + " " + e.path + ": " + http.StatusText(e.status) + ": " + st.Message
	}
	return e.method + " " + e.path + ": " + http.StatusText(e.status) + ": " + strings.TrimSpace(e.body)
}

package features

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Paths of herd's API, as an operator's tools call them.
const (
	nodesPath = "/api/v1/nodes"
	herdPath  = "/apis/herd.dev/v1"
	auditPath = herdPath + "/auditevents"
)

func nodePath(name string) string       { return nodesPath + "/" + url.PathEscape(name) }
func nodeStatusPath(name string) string { return nodePath(name) + "/status" }
func registrationPath(name string) string {
	return herdPath + "/nodes/" + url.PathEscape(name) + "/registration"
}
func heartbeatPath(name string) string {
	return herdPath + "/nodes/" + url.PathEscape(name) + "/heartbeat"
}
func timelinePath(name string) string {
	return herdPath + "/nodes/" + url.PathEscape(name) + "/timeline"
}

// response is what herd answered to one request.
type response struct {
	method, path string
	code         int
	body         []byte
	// warnings are the answer's Warning headers.
	warnings []string
	// header is the answer's header, where a step keeps it.
	header http.Header
}

func (r response) String() string {
	return fmt.Sprintf("%s %s: %d %s", r.method, r.path, r.code, bytes.TrimSpace(r.body))
}

// do sends one request to herd and reads the whole answer. It carries
// the admin's token when herd requires tokens: the world's own reads must
// see everything.
func (w *world) do(method, path, contentType string, body []byte) (response, error) {
	return w.doAs(w.auth.admin, method, path, contentType, body)
}

// doAs is do with token as the bearer token ("" for none).
func (w *world) doAs(token, method, path, contentType string, body []byte) (response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	// No context is at hand in a step; the world's client bounds each
	// request with its timeout.
	req, err := http.NewRequestWithContext(context.Background(), method, w.server.URL()+path, rd)
	if err != nil {
		return response{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	return response{method: method, path: path, code: resp.StatusCode, body: data, warnings: resp.Header.Values("Warning"), header: resp.Header}, nil
}

// write sends a request that may change herd. It notes the log just
// before, so that a step can say what the request appended, and keeps the
// answer in w.last. Whether herd accepted it is for the caller to judge.
func (w *world) write(method, path, contentType string, body []byte) error {
	mark, err := w.logMark()
	if err != nil {
		return err
	}
	w.before = mark
	w.last, err = w.doAs(w.auth.actor, method, path, contentType, body)
	if err != nil {
		return err
	}
	return w.settle()
}

// mustWrite is write for requests the scenario expects herd to accept.
func (w *world) mustWrite(method, path, contentType string, body []byte) error {
	if err := w.write(method, path, contentType, body); err != nil {
		return err
	}
	if w.last.code < 200 || w.last.code > 299 {
		return fmt.Errorf("herd refused the request: %s", w.last)
	}
	return nil
}

// writeJSON is mustWrite with v as a JSON body.
func (w *world) writeJSON(method, path, contentType string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.mustWrite(method, path, contentType, data)
}

// get reads path into v; anything but 200 OK is an error.
func (w *world) get(path string, v any) error {
	r, err := w.do(http.MethodGet, path, "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusOK {
		return fmt.Errorf("unexpected answer: %s", r)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		return fmt.Errorf("%s %s: decode: %w", r.method, r.path, err)
	}
	return nil
}

// node is GET /api/v1/nodes/{name}.
func (w *world) node(name string) (corev1.Node, error) {
	var n corev1.Node
	err := w.get(nodePath(name), &n)
	return n, err
}

// listNodes is GET /api/v1/nodes, with a label selector when one is given.
func (w *world) listNodes(selector string) (corev1.NodeList, error) {
	path := nodesPath
	if selector != "" {
		path += "?labelSelector=" + url.QueryEscape(selector)
	}
	var l corev1.NodeList
	err := w.get(path, &l)
	return l, err
}

// status decodes the last answer as a Kubernetes Status.
func (w *world) status() (metav1.Status, error) {
	var st metav1.Status
	if err := json.Unmarshal(w.last.body, &st); err != nil {
		return st, fmt.Errorf("the answer is not a Status: %s", w.last)
	}
	if st.Kind != "Status" {
		return st, fmt.Errorf("the answer is not a Status: %s", w.last)
	}
	return st, nil
}

// resourceVersion parses a Kubernetes resourceVersion, which herd makes a
// log position.
func resourceVersion(rv string) (int64, error) {
	pos, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("resourceVersion %q is not a log position", rv)
	}
	return pos, nil
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// watchTimeout bounds the wait for a change to reach a watcher. A healthy
// herd delivers in milliseconds; an informer reconnecting after a restart
// backs off for a few seconds.
const watchTimeout = 60 * time.Second

// informerLog records, in order, what an informer's handlers were told:
// "ADDED name@rv", "MODIFIED name@rv", "DELETED name@rv" (names of
// namespaced objects as namespace/name). Updates that change nothing (a
// relist's resync) are counted apart.
type informerLog struct {
	mu     sync.Mutex
	seen   []string
	resync int
}

func (l *informerLog) add(typ string, obj any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if gone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		// The informer missed the deletion and found out from a relist.
		l.seen = append(l.seen, fmt.Sprintf("%s %s@unknown", typ, gone.Key))
		return
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		l.seen = append(l.seen, fmt.Sprintf("%s %T", typ, obj))
		return
	}
	l.seen = append(l.seen, fmt.Sprintf("%s %s@%s", typ, objectKey(m.GetNamespace(), m.GetName()), m.GetResourceVersion()))
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func (l *informerLog) handlers() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { l.add("ADDED", obj) },
		UpdateFunc: func(old, cur any) {
			o, oerr := meta.Accessor(old)
			c, cerr := meta.Accessor(cur)
			if oerr == nil && cerr == nil && o.GetResourceVersion() == c.GetResourceVersion() {
				l.mu.Lock()
				l.resync++
				l.mu.Unlock()
				return
			}
			l.add("MODIFIED", cur)
		},
		DeleteFunc: func(obj any) { l.add("DELETED", obj) },
	}
}

func (l *informerLog) snapshot() ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen), l.resync
}

// changesAfter is what a watch of the objects whose streams start with
// prefix ("node/", "pod/") must see from position after, read from herd's
// own audit log: every event of an object's stream, at its position, as
// the change it made. An object's first event, or its first after it was
// deleted, adds it; the event type deleting deletes it.
func changesAfter(t *testing.T, base, prefix, deleting string, after int64) []string {
	t.Helper()
	var want []string
	exists := map[string]bool{}
	typ := "MODIFIED"
	log := readLog(t, base)
	for i, e := range log {
		key, ok := strings.CutPrefix(e.Stream, prefix)
		if !ok {
			continue
		}
		switch {
		case e.Type == deleting:
			typ, exists[key] = "DELETED", false
		case !exists[key]:
			typ, exists[key] = "ADDED", true
		}
		// One write (a command's events on one object) is one change, at
		// its last event's position.
		if i+1 < len(log) {
			next := log[i+1]
			if next.Stream == e.Stream && next.Position == e.Position+1 && next.RecordedAt == e.RecordedAt &&
				next.Actor == e.Actor && next.CausationID == e.CausationID && next.CorrelationID == e.CorrelationID {
				continue
			}
		}
		if e.Position > after {
			want = append(want, fmt.Sprintf("%s %s@%d", typ, key, e.Position))
		}
		typ = "MODIFIED"
	}
	return want
}

// TestInformerSeesEveryChangeAndSurvivesARestart runs client-go shared
// informers on nodes, pods and ConfigMaps against a real herd serve: they start from
// herd's current state, are told of every add, update and delete in the
// order of the log, and when herd restarts they resume where they were,
// missing nothing and repeating nothing.
func TestInformerSeesEveryChangeAndSurvivesARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startServe(t, serveOptions{DataDir: dir})
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-01"))
	createPod(t, srv.URL, "default", "before")

	cs := newClientset(t, &rest.Config{Host: srv.URL, Timeout: 30 * time.Second})
	factory := informers.NewSharedInformerFactory(cs, 0)
	type watched struct {
		name, prefix, deleting string
		informer               cache.SharedIndexInformer
		log                    *informerLog
		synced                 int64
		initial                []string
	}
	all := []*watched{
		{name: "nodes", prefix: "node/", deleting: "NodeDeleted", informer: factory.Core().V1().Nodes().Informer()},
		{name: "pods", prefix: "pod/", deleting: "PodFinalized", informer: factory.Core().V1().Pods().Informer()},
		{name: "configmaps", prefix: "configmap/", deleting: "ConfigMapDeleted", informer: factory.Core().V1().ConfigMaps().Informer()},
	}
	for _, w := range all {
		w.log = &informerLog{}
		if _, err := w.informer.AddEventHandler(w.log.handlers()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	factory.Start(ctx.Done())
	for _, w := range all {
		if !cache.WaitForCacheSync(ctx.Done(), w.informer.HasSynced) {
			t.Fatalf("the %s informer never synced", w.name)
		}
		synced, err := strconv.ParseInt(w.informer.LastSyncResourceVersion(), 10, 64)
		if err != nil {
			t.Fatalf("the %s informer synced at resourceVersion %q: %v", w.name, w.informer.LastSyncResourceVersion(), err)
		}
		w.synced = synced
		w.initial, _ = w.log.snapshot()
	}
	// The scheduler may have touched the pod already; the informers start
	// with what exists.
	if first := withoutRVs(all[0].initial[:1]); !slices.Equal(first, []string{"ADDED pico-01"}) {
		t.Fatalf("the nodes informer started with %v, want pico-01 added", all[0].initial)
	}
	if first := withoutRVs(all[1].initial[:1]); !slices.Equal(first, []string{"ADDED default/before"}) {
		t.Fatalf("the pods informer started with %v, want default/before added", all[1].initial)
	}

	seesAll := func(base string) {
		t.Helper()
		for _, w := range all {
			eventually(t, watchTimeout, func() error {
				want := append(slices.Clone(w.initial), changesAfter(t, base, w.prefix, w.deleting, w.synced)...)
				got, resync := w.log.snapshot()
				if !slices.Equal(got, want) {
					return fmt.Errorf("the %s informer saw\n  %s\nwant\n  %s", w.name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
				if resync != 0 {
					return fmt.Errorf("the %s informer relisted (%d resyncs) instead of resuming", w.name, resync)
				}
				return nil
			})
		}
	}

	registerAgent(t, srv.URL, "web-01")
	heartbeat(t, srv.URL, "web-01", healthyMetrics())
	createPod(t, srv.URL, "default", "p1")
	createNamespace(t, srv.URL, "team-a")
	createPod(t, srv.URL, "team-a", "p2")
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-02", withReady("False", "KubeletNotReady")))
	mustCall(t, http.StatusOK, http.MethodDelete, srv.URL+"/api/v1/nodes/pico-01", nil, nil)
	deletePodNow(t, srv.URL, "default", "before")
	heartbeat(t, srv.URL, "web-01", healthyMetrics())
	createConfigMap(t, srv.URL, "default", "pico-config", "5")
	seesAll(srv.URL)

	// herd restarts on the same address; what happens after it is back
	// reaches the informers too, exactly once.
	addr := strings.TrimPrefix(srv.URL, "http://")
	srv.stop()
	srv = startServe(t, serveOptions{DataDir: dir, Listen: addr, Args: []string{"--listen", addr}})
	registerAgent(t, srv.URL, "web-02")
	heartbeat(t, srv.URL, "web-02", healthyMetrics())
	createPod(t, srv.URL, "default", "p3")
	deletePodNow(t, srv.URL, "team-a", "p2")
	mustCall(t, http.StatusOK, http.MethodDelete, srv.URL+"/api/v1/nodes/web-01", nil, nil)
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-01"))
	mustCall(t, http.StatusOK, http.MethodPut, srv.URL+"/api/v1/namespaces/default/configmaps/pico-config", configMapBody("pico-config", "10"), nil)
	createConfigMap(t, srv.URL, "team-a", "settings", "1")
	mustCall(t, http.StatusOK, http.MethodDelete, srv.URL+"/api/v1/namespaces/default/configmaps/pico-config", nil, nil)
	seesAll(srv.URL)
}

func configMapBody(name, interval string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": map[string]any{"interval": interval}}
}

// createConfigMap creates a ConfigMap through the Kubernetes API.
func createConfigMap(t *testing.T, base, namespace, name, interval string) {
	t.Helper()
	mustCall(t, http.StatusCreated, http.MethodPost, base+"/api/v1/namespaces/"+namespace+"/configmaps", configMapBody(name, interval), nil)
}

// withoutRVs strips the "@resourceVersion" of informer log lines.
func withoutRVs(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i], _, _ = strings.Cut(l, "@")
	}
	return out
}

// createPod creates a one-container pod through the Kubernetes API. Its
// node selector matches no node, so it stays pending, and a deletion
// removes it at once, without waiting for a node to stop it.
func createPod(t *testing.T, base, namespace, name string) corev1.Pod {
	t.Helper()
	var p corev1.Pod
	body := map[string]any{
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"containers":   []any{map[string]any{"name": "c", "image": "nginx"}},
			"nodeSelector": map[string]any{"herd.dev/test": "nowhere"},
		},
	}
	mustCall(t, http.StatusCreated, http.MethodPost, base+"/api/v1/namespaces/"+namespace+"/pods", body, &p)
	return p
}

// deletePodNow deletes a pod without a grace period.
func deletePodNow(t *testing.T, base, namespace, name string) {
	t.Helper()
	mustCall(t, http.StatusOK, http.MethodDelete, base+"/api/v1/namespaces/"+namespace+"/pods/"+name+"?gracePeriodSeconds=0", nil, nil)
}

// stream is a long-running command whose output is read as it comes.
type stream struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	mu     sync.Mutex
	lines  []string
	done   chan struct{}
}

// startStream runs name with args until the test ends or stop is called,
// collecting its stdout line by line.
func startStream(t *testing.T, env []string, name string, args ...string) *stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	s := &stream{cmd: exec.CommandContext(ctx, name, args...), cancel: cancel, done: make(chan struct{})}
	s.cmd.Env = env
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	s.cmd.Stderr = &stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("%s %s printed:\n%s\nstderr:\n%s", name, strings.Join(args, " "), strings.Join(s.output(), "\n"), stderr.String())
		}
	})
	return s
}

func (s *stream) output() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lines)
}

func (s *stream) stop() {
	s.cancel()
	<-s.done
	_ = s.cmd.Wait()
}

// waitFor waits until the output has a line, after the first from lines,
// whose fields include every one of want; it returns the line's index.
func (s *stream) waitFor(t *testing.T, from int, want ...string) int {
	t.Helper()
	found := -1
	eventually(t, watchTimeout, func() error {
		lines := s.output()
		for i := from; i < len(lines); i++ {
			fields := strings.Fields(lines[i])
			if !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(fields, w) }) {
				found = i
				return nil
			}
		}
		return fmt.Errorf("no line with %q after line %d:\n%s", want, from, strings.Join(lines, "\n"))
	})
	return found
}

// TestKubectlGetWatch runs `kubectl get nodes -w` against a real herd
// serve and reads its output as the fleet changes: every change is a new
// row, in order, with its kind of change.
func TestKubectlGetWatch(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-01"))
	kc := newKubectl(t, srv.URL)

	t.Run("every node", func(t *testing.T) {
		w := startStream(t, kc.env, "kubectl", "--server", srv.URL, "get", "nodes", "-w", "--output-watch-events")
		i := w.waitFor(t, 0, "ADDED", "pico-01", "Ready")
		if header := strings.Fields(w.output()[0]); !slices.Equal(header, []string{"EVENT", "NAME", "STATUS", "ROLES", "AGE", "VERSION"}) {
			t.Errorf("header %q", header)
		}
		registerAgent(t, srv.URL, "web-01")
		i = w.waitFor(t, i+1, "ADDED", "web-01")
		heartbeat(t, srv.URL, "web-01", healthyMetrics())
		i = w.waitFor(t, i+1, "MODIFIED", "web-01", "Ready")
		mustCall(t, http.StatusOK, http.MethodDelete, srv.URL+"/api/v1/nodes/pico-01", nil, nil)
		w.waitFor(t, i+1, "DELETED", "pico-01")
	})

	t.Run("pods in every namespace", func(t *testing.T) {
		createPod(t, srv.URL, "default", "before")
		w := startStream(t, kc.env, "kubectl", "--server", srv.URL, "get", "pods", "-A", "-w", "--output-watch-events")
		i := w.waitFor(t, 0, "ADDED", "default", "before", "Pending")
		if header := strings.Fields(w.output()[0]); !slices.Equal(header, []string{"EVENT", "NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"}) {
			t.Errorf("header %q", header)
		}
		createNamespace(t, srv.URL, "team-a")
		createPod(t, srv.URL, "team-a", "web")
		i = w.waitFor(t, i+1, "ADDED", "team-a", "web")
		deletePodNow(t, srv.URL, "team-a", "web")
		w.waitFor(t, i+1, "DELETED", "team-a", "web")
	})

	t.Run("one node, wide", func(t *testing.T) {
		w := startStream(t, kc.env, "kubectl", "--server", srv.URL, "get", "node", "web-01", "-w", "-o", "wide")
		i := w.waitFor(t, 0, "web-01", "10.0.0.21", "linux")
		if header := strings.Fields(w.output()[0]); !slices.Contains(header, "KIND") || !slices.Contains(header, "INTERNAL-IP") {
			t.Errorf("wide header %q", header)
		}
		registerAgent(t, srv.URL, "web-02")
		heartbeat(t, srv.URL, "web-01", healthyMetrics())
		w.waitFor(t, i+1, "web-01", "Ready")
		for _, line := range w.output()[1:] {
			if strings.Fields(line)[0] != "web-01" {
				t.Errorf("a watch of web-01 printed %q", line)
			}
		}
	})
}

// watchFrame is one event of a raw watch stream.
type watchFrame struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// TestWatchFromAnOldResourceVersionExpires starts herd with a one-second
// watch history: a resourceVersion whose next event is older than that is
// answered the Kubernetes way, an ERROR event with 410 Expired, while
// resuming from the newest still works.
func TestWatchFromAnOldResourceVersionExpires(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{Args: []string{"--watch-history", "1s"}})
	first := postNode(t, srv.URL, nodeJSON(t, "pico-node.json", "pico-01"))
	c := &http.Client{Timeout: 10 * time.Second}
	firstFrame := func(rv string) watchFrame {
		t.Helper()
		resp, err := get(t.Context(), c, srv.URL+"/api/v1/nodes?watch=true&timeoutSeconds=1&resourceVersion="+rv)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var f watchFrame
		if err := json.NewDecoder(resp.Body).Decode(&f); err != nil && err != io.EOF {
			t.Fatalf("watch from %s: %v", rv, err)
		}
		return f
	}
	eventually(t, watchTimeout, func() error {
		f := firstFrame("0")
		if f.Type != "ADDED" {
			return fmt.Errorf("a watch from 0 starts with %s", f.Type)
		}
		f = firstFrame(strconv.FormatInt(resourceVersion(t, first)-1, 10))
		var st struct {
			Code   int    `json:"code"`
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(f.Object, &st)
		if f.Type != "ERROR" || st.Code != http.StatusGone || st.Reason != "Expired" {
			return fmt.Errorf("a watch from before pico-01 began with %s %s", f.Type, f.Object)
		}
		return nil
	})
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// createScheduledPod creates a pod through the API and waits until herd's
// scheduler has placed it.
func createScheduledPod(t *testing.T, base, namespace, name string) {
	t.Helper()
	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec":     map[string]any{"containers": []map[string]any{{"name": "web", "image": "nginx"}}},
	}
	mustCall(t, http.StatusCreated, http.MethodPost, base+"/api/v1/namespaces/"+namespace+"/pods", pod, nil)
	eventually(t, 20*time.Second, func() error {
		var p corev1.Pod
		mustCall(t, http.StatusOK, http.MethodGet, base+"/api/v1/namespaces/"+namespace+"/pods/"+name, nil, &p)
		if p.Spec.NodeName == "" {
			return fmt.Errorf("pod %s/%s is not scheduled", namespace, name)
		}
		return nil
	})
}

// TestKubectlEvents: kubectl reads the events herd derives from its log:
// get events in a namespace without complaint, describe pod shows where
// the scheduler put the pod, and get events -w streams a new one.
func TestKubectlEvents(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	registerAgent(t, srv.URL, "n1")
	heartbeat(t, srv.URL, "n1", healthyMetrics())
	kc := newKubectl(t, srv.URL)
	// A herd that serves namespaces wants the namespace first; one that
	// does not takes pods in any.
	kc.run(t, "create", "namespace", "demo")
	createScheduledPod(t, srv.URL, "demo", "web")

	t.Run("get events -n demo", func(t *testing.T) {
		res := kc.run(t, "get", "events", "-n", "demo")
		if res.Code != 0 || res.Stderr != "" {
			t.Fatalf("kubectl get events -n demo: exit %d, stderr %q", res.Code, res.Stderr)
		}
		header, rows := table(t, res.Stdout)
		if strings.Join(header, " ") != "LAST SEEN TYPE REASON OBJECT MESSAGE" {
			t.Errorf("header %q", header)
		}
		col := func(row []string, name string) string { return row[slices.Index(header, name)] }
		if len(rows) == 0 || col(rows[0], "TYPE") != "Normal" || col(rows[0], "REASON") != "Scheduled" || col(rows[0], "OBJECT") != "pod/web" ||
			col(rows[0], "MESSAGE") != "Successfully assigned demo/web to n1" {
			t.Errorf("rows %q, want the Scheduled event of pod/web first", rows)
		}
	})

	t.Run("describe pod", func(t *testing.T) {
		out := kc.must(t, "describe", "pod", "-n", "demo", "web")
		_, events, _ := strings.Cut(out, "\nEvents:")
		if !strings.Contains(events, "Scheduled") || !strings.Contains(events, "Successfully assigned demo/web to n1") {
			t.Errorf("describe pod shows no Scheduled event:\n%s", out)
		}
	})

	t.Run("get events -A -w", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "kubectl", "--server", srv.URL, "get", "events", "-A", "-w")
		cmd.Env = kc.env
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cancel()
			_ = cmd.Wait()
		})
		lines := make(chan string, 100)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// The events so far come first; the new pod's come as they happen.
		await := func(what string) {
			t.Helper()
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("kubectl get events -w ended before %q: %s", what, stderr.String())
					}
					if strings.Contains(l, what) {
						return
					}
				case <-ctx.Done():
					t.Fatalf("kubectl get events -w showed no %q: %s", what, stderr.String())
				}
			}
		}
		await("pod/web")
		createScheduledPod(t, srv.URL, "demo", "late")
		await("Successfully assigned demo/late to n1")
	})
}

// TestClientGoEvents: client-go's default clientset (protobuf) keeps an
// informer of Events that sees a new pod's Scheduled event, and lists
// events.k8s.io/v1 Events.
func TestClientGoEvents(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	registerAgent(t, srv.URL, "n1")
	heartbeat(t, srv.URL, "n1", healthyMetrics())
	cs := newClientset(t, &rest.Config{Host: srv.URL})
	e := awaitScheduledEvent(t, cs, "default", "informed", func() { createScheduledPod(t, srv.URL, "default", "informed") })
	if e.Message != "Successfully assigned default/informed to n1" || e.InvolvedObject.UID == "" {
		t.Errorf("informer saw %s/%s %q about %+v", e.Namespace, e.Name, e.Message, e.InvolvedObject)
	}

	list, err := cs.EventsV1().Events("default").List(t.Context(), metav1.ListOptions{FieldSelector: "regarding.name=informed"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 || list.Items[0].Reason != "Scheduled" || list.Items[0].Regarding.Kind != "Pod" || list.Items[0].EventTime.IsZero() {
		t.Errorf("events.k8s.io/v1 events of pod informed: %+v", list.Items)
	}
}

// exerciseEvents keeps an informer of Events, as a controller does, and
// waits until it sees the Scheduled event of a new pod: it creates a Ready
// node and a pod, both named events-SUFFIX, for herd's scheduler to put
// the one on the other.
func exerciseEvents(t *testing.T, cs kubernetes.Interface, suffix string) {
	t.Helper()
	ctx := t.Context()
	name := "events-" + suffix
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a Ready node: %v", err)
	}
	e := awaitScheduledEvent(t, cs, "default", name, func() {
		if _, err := cs.CoreV1().Pods("default").Create(ctx, e2ePod(name, ""), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create pod: %v", err)
		}
	})
	if want := "Successfully assigned default/" + name + " to " + name; e.Message != want || e.InvolvedObject.Kind != "Pod" {
		t.Errorf("informer saw %q about %+v, want %q about the pod", e.Message, e.InvolvedObject, want)
	}
}

// awaitScheduledEvent starts an informer of Events on cs, runs create
// once it has synced, and returns the Scheduled event of pod
// namespace/name that the informer then sees.
func awaitScheduledEvent(t *testing.T, cs kubernetes.Interface, namespace, name string, create func()) *corev1.Event {
	t.Helper()
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().Events().Informer()
	scheduled := make(chan *corev1.Event, 16)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if e, ok := obj.(*corev1.Event); ok && e.Reason == "Scheduled" && e.Namespace == namespace && e.InvolvedObject.Name == name {
			scheduled <- e
		}
	}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	factory.Start(ctx.Done())
	// The informers stop once ctx ends; Shutdown waits for them.
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the Events informer never synced")
	}
	create()
	select {
	case e := <-scheduled:
		return e
	case <-time.After(30 * time.Second):
		t.Fatalf("the informer saw no Scheduled event of pod %s/%s", namespace, name)
		return nil
	}
}

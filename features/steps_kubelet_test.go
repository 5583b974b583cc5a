package features

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/kubelet/kubelettest"
)

// kubeletStep is the longest step herd's clock takes at once while herd
// polls kubelets: the health check's period.
const kubeletStep = 5 * time.Second

// pollTimeout bounds the wait for kubelet pollers to finish a poll of a
// simulated kubelet on loopback, which takes milliseconds.
const pollTimeout = 10 * time.Second

// simKubelet is a simulated kubelet on a loopback port.
type simKubelet struct {
	kubelet *kubelettest.Kubelet
	server  *httptest.Server
	pods    []corev1.Pod
}

func (w *world) registerKubeletSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a kubelet "([^"]+)" that herd polls$`, w.kubeletHerdPolls)
	sc.Step(`^a kubelet "([^"]+)" whose evictionHard is "([^"]+)", that herd polls$`, w.kubeletWithThresholds)
	sc.Step(`^the kubelet on "([^"]+)" has (\d+)(Mi|Gi) of memory available$`, w.kubeletMemory)
	sc.Step(`^the kubelet on "([^"]+)" stops answering$`, w.kubeletStops)
	sc.Step(`^the kubelet on "([^"]+)" answers again$`, w.kubeletAnswersAgain)
	sc.Step(`^the kubelet on "([^"]+)" runs pod "([^"]+)" whose container has crashed (\d+) times$`, w.kubeletRunsCrashingPod)
	sc.Step(`^the kubelet on "([^"]+)" runs pod "([^"]+)"$`, w.kubeletRunsPod)
	sc.Step(`^the kubelet on "([^"]+)" no longer runs pod "([^"]+)"$`, w.kubeletDropsPod)
	sc.Step(`^a client puts the kubelet target "([^"]+)" with:$`, w.putsKubeletTarget)
	sc.Step(`^a client deletes the kubelet target "([^"]+)"$`, w.deletesKubeletTarget)
	sc.Step(`^herd polls (\d+) kubelets?$`, w.pollsKubelets)
	sc.Step(`^node "([^"]+)" is (Ready|NotReady)$`, w.nodeIsReady)
	sc.Step(`^pod "([^"]+)" runs on "([^"]+)", observed through its kubelet$`, w.podObservedOn)
	sc.Step(`^pod "([^"]+)" shows (\w+): "([^"]*)"$`, w.podShowsReason)
	sc.Step(`^the container of pod "([^"]+)" waits with reason "(\w+)" after (\d+) restarts, having last exited with code (\d+)$`, w.containerWaits)
}

func kubeletTargetPath(name string) string {
	return herdPath + "/kubelettargets/" + url.PathEscape(name)
}

// polling reports whether herd polls any kubelet.
func (w *world) polling() bool { return w.kubelets != nil && len(w.kubelets.Status()) > 0 }

// waitPollers waits until every kubelet poller waits for a time ahead of
// herd's clock.
func (w *world) waitPollers() error {
	if !w.polling() {
		return nil
	}
	deadline := time.Now().Add(pollTimeout)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !w.kubelets.Idle() {
		if time.Now().After(deadline) {
			return fmt.Errorf("herd's kubelet pollers did not settle within %s: %+v", pollTimeout, w.kubelets.Status())
		}
		<-tick.C
	}
	return nil
}

// sim returns the scenario's simulated kubelet of a node.
func (w *world) sim(name string) (*simKubelet, error) {
	s, ok := w.sims[name]
	if !ok {
		return nil, fmt.Errorf("the scenario has no kubelet %q", name)
	}
	return s, nil
}

// startKubelet serves a simulated kubelet on loopback; prepare sets it up
// before herd first polls it.
func (w *world) startKubelet(name string, prepare func(*kubelettest.Kubelet)) (*simKubelet, error) {
	if w.sims == nil {
		w.sims = map[string]*simKubelet{}
	}
	if _, dup := w.sims[name]; dup {
		return nil, fmt.Errorf("the scenario already has a kubelet %q", name)
	}
	k := kubelettest.New(name)
	if prepare != nil {
		prepare(k)
	}
	s := &simKubelet{kubelet: k, server: httptest.NewServer(k)}
	w.sims[name] = s
	return s, nil
}

// kubeletHerdPolls starts a simulated kubelet and gives it to herd through
// herd's API, then waits for herd's first poll of it.
func (w *world) kubeletHerdPolls(name string) error {
	return w.pollNewKubelet(name, nil)
}

func (w *world) kubeletWithThresholds(name, thresholds string) error {
	hard := map[string]string{}
	for _, kv := range strings.Split(thresholds, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return fmt.Errorf("want evictionHard as signal=value, ...: %q", thresholds)
		}
		hard[k] = v
	}
	return w.pollNewKubelet(name, func(k *kubelettest.Kubelet) { k.SetEvictionHard(hard) })
}

func (w *world) pollNewKubelet(name string, prepare func(*kubelettest.Kubelet)) error {
	s, err := w.startKubelet(name, prepare)
	if err != nil {
		return err
	}
	if err := w.writeJSON(http.MethodPut, kubeletTargetPath(name), "application/json",
		map[string]any{"spec": map[string]any{"url": s.server.URL}}); err != nil {
		return err
	}
	return w.waitFirstPoll(name)
}

// waitFirstPoll waits until herd's poller of the named kubelet has made
// its first poll and herd has taken in what it set off.
func (w *world) waitFirstPoll(name string) error {
	deadline := time.Now().Add(pollTimeout)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, st := range w.kubelets.Status() {
			if st.Name == name && (st.Heartbeats > 0 || st.Failures > 0) {
				if err := w.waitPollers(); err != nil {
					return err
				}
				return w.settle()
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("herd did not poll the kubelet %q within %s: %+v", name, pollTimeout, w.kubelets.Status())
		}
		<-tick.C
	}
}

func (w *world) kubeletMemory(name string, n int, unit string) error {
	s, err := w.sim(name)
	if err != nil {
		return err
	}
	shift := map[string]uint{"Mi": 20, "Gi": 30}[unit]
	s.kubelet.SetMemoryAvailable(uint64(n) << shift)
	return nil
}

func (w *world) kubeletStops(name string) error {
	s, err := w.sim(name)
	if err != nil {
		return err
	}
	s.server.Close()
	return nil
}

// kubeletAnswersAgain serves the kubelet again at the address it had.
func (w *world) kubeletAnswersAgain(name string) error {
	s, err := w.sim(name)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.server.Listener.Addr().String())
	if err != nil {
		return fmt.Errorf("serve the kubelet %q again: %w", name, err)
	}
	s.server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.kubelet}}
	s.server.Start()
	return nil
}

func (w *world) setPods(name string, change func([]corev1.Pod) []corev1.Pod) error {
	s, err := w.sim(name)
	if err != nil {
		return err
	}
	s.pods = change(s.pods)
	s.kubelet.SetPods(s.pods...)
	return nil
}

func (w *world) kubeletRunsCrashingPod(name, ref string, restarts int) error {
	ns, pod := podRef(ref)
	return w.setPods(name, func(ps []corev1.Pod) []corev1.Pod {
		return append(ps, kubelettest.CrashLoopingPod(ns, pod, int32(restarts)))
	})
}

func (w *world) kubeletRunsPod(name, ref string) error {
	ns, pod := podRef(ref)
	return w.setPods(name, func(ps []corev1.Pod) []corev1.Pod { return append(ps, kubelettest.RunningPod(ns, pod)) })
}

func (w *world) kubeletDropsPod(name, ref string) error {
	ns, pod := podRef(ref)
	return w.setPods(name, func(ps []corev1.Pod) []corev1.Pod {
		var out []corev1.Pod
		for _, p := range ps {
			if p.Namespace != ns || p.Name != pod {
				out = append(out, p)
			}
		}
		return out
	})
}

func (w *world) putsKubeletTarget(name string, doc *godog.DocString) error {
	return w.write(http.MethodPut, kubeletTargetPath(name), "application/json", []byte(doc.Content))
}

func (w *world) deletesKubeletTarget(name string) error {
	if err := w.mustWrite(http.MethodDelete, kubeletTargetPath(name), "", nil); err != nil {
		return err
	}
	return w.waitPollers()
}

func (w *world) pollsKubelets(n int) error {
	if got := len(w.kubelets.Status()); got != n {
		return fmt.Errorf("herd polls %d kubelets, want %d: %+v", got, n, w.kubelets.Status())
	}
	return nil
}

// nodeIsReady checks what kubectl get nodes shows as STATUS.
func (w *world) nodeIsReady(name, want string) error {
	n, err := w.node(name)
	if err != nil {
		return err
	}
	got := "NotReady"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			got = "Ready"
		}
	}
	if got != want {
		return fmt.Errorf("node %s is %s, want %s: %+v", name, got, want, n.Status.Conditions)
	}
	return nil
}

func (w *world) podObservedOn(ref, node string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if p.Spec.NodeName != node || p.Spec.SchedulerName != "" {
		return fmt.Errorf("pod %s: nodeName %q, schedulerName %q; want %q and none (no scheduler placed it)", ref, p.Spec.NodeName, p.Spec.SchedulerName, node)
	}
	return nil
}

func (w *world) podShowsReason(ref, reason, message string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if p.Status.Reason != reason || p.Status.Message != message {
		return fmt.Errorf("pod %s: reason %q, message %q; want %q, %q", ref, p.Status.Reason, p.Status.Message, reason, message)
	}
	return nil
}

func (w *world) containerWaits(ref, reason string, restarts, exitCode int) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if len(p.Status.ContainerStatuses) != 1 {
		return fmt.Errorf("pod %s has %d container statuses, want 1", ref, len(p.Status.ContainerStatuses))
	}
	c := p.Status.ContainerStatuses[0]
	got := "not waiting"
	if c.State.Waiting != nil {
		got = "waiting with reason " + strconv.Quote(c.State.Waiting.Reason)
	}
	last := "no last termination"
	if t := c.LastTerminationState.Terminated; t != nil {
		last = fmt.Sprintf("last exit code %d", t.ExitCode)
	}
	want := fmt.Sprintf("waiting with reason %q, %d restarts, last exit code %d", reason, restarts, exitCode)
	if have := fmt.Sprintf("%s, %d restarts, %s", got, c.RestartCount, last); have != want {
		return fmt.Errorf("the container of pod %s: %s; want %s", ref, have, want)
	}
	return nil
}

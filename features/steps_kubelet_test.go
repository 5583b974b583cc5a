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
	w.registerKubeletSignalSteps(sc)
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

// onKubelet changes what the scenario's kubelet of a node serves.
func (w *world) onKubelet(name string, change func(*kubelettest.Kubelet)) error {
	s, err := w.sim(name)
	if err != nil {
		return err
	}
	change(s.kubelet)
	return nil
}

func (w *world) kubeletMemory(name string, n int, unit string) error {
	shift := map[string]uint{"Mi": 20, "Gi": 30}[unit]
	return w.onKubelet(name, func(k *kubelettest.Kubelet) { k.SetMemoryAvailable(uint64(n) << shift) })
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

func (w *world) registerKubeletSignalSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a kubelet "([^"]+)" running pod "([^"]+)" with a CPU limit of (\S+), that herd polls$`, w.kubeletWithLimitedPod)
	sc.Step(`^the kubelet on "([^"]+)" is upgraded to "([^"]+)"$`, w.kubeletUpgraded)
	sc.Step(`^the kubelet on "([^"]+)" uses ([\d.]+) of its \d+ CPU cores$`, w.kubeletUsesCores)
	sc.Step(`^the kubelet on "([^"]+)" holds the container of pod "([^"]+)" back in (\d+)% of its CPU periods$`, w.kubeletThrottles)
	sc.Step(`^the kubelet on "([^"]+)" gives the container of pod "([^"]+)" the CPU it needs$`, w.kubeletStopsThrottling)
	sc.Step(`^the network interfaces of "([^"]+)" count (\d+) errors a second$`, w.networkErrors)
	sc.Step(`^the network interfaces of "([^"]+)" count no more errors$`, w.networkQuiet)
	sc.Step(`^the container runtime on "([^"]+)" keeps failing (\w+) operations$`, w.runtimeFails)
	sc.Step(`^the container runtime on "([^"]+)" no longer fails (\w+) operations$`, w.runtimeRecovers)
	sc.Step(`^the kubelet on "([^"]+)" takes ([\d.]+) seconds to relist its pods$`, w.kubeletRelists)
	sc.Step(`^node "([^"]+)" shows System Info:$`, w.nodeShowsSystemInfo)
	sc.Step(`^the next (\d+) seconds add only heartbeats to the log$`, w.onlyHeartbeats)
}

// simPod is the pod of the scenario's kubelet named by ref.
func (w *world) simPod(name, ref string) (*simKubelet, corev1.Pod, error) {
	s, err := w.sim(name)
	if err != nil {
		return nil, corev1.Pod{}, err
	}
	ns, pod := podRef(ref)
	for _, p := range s.pods {
		if p.Namespace == ns && p.Name == pod {
			return s, p, nil
		}
	}
	return nil, corev1.Pod{}, fmt.Errorf("the kubelet %q runs no pod %s", name, ref)
}

// kubeletWithLimitedPod starts a kubelet that runs a pod whose container
// has a CPU limit from before herd first polls it.
func (w *world) kubeletWithLimitedPod(name, ref, limit string) error {
	ns, pod := podRef(ref)
	p := kubelettest.WithCPULimit(kubelettest.RunningPod(ns, pod), limit)
	if err := w.pollNewKubelet(name, func(k *kubelettest.Kubelet) { k.SetPods(p) }); err != nil {
		return err
	}
	w.sims[name].pods = []corev1.Pod{p}
	return nil
}

func (w *world) kubeletUpgraded(name, version string) error {
	return w.onKubelet(name, func(k *kubelettest.Kubelet) { k.SetVersion(version) })
}

func (w *world) kubeletUsesCores(name string, cores float64) error {
	return w.onKubelet(name, func(k *kubelettest.Kubelet) { k.SetCPUUsage(uint64(cores * 1e9)) })
}

func (w *world) kubeletThrottles(name, ref string, percent int) error {
	s, p, err := w.simPod(name, ref)
	if err != nil {
		return err
	}
	s.kubelet.ThrottleContinuously(p, p.Spec.Containers[0].Name, percent)
	return nil
}

func (w *world) kubeletStopsThrottling(name, ref string) error {
	return w.kubeletThrottles(name, ref, 0)
}

func (w *world) networkErrors(name string, perSecond int) error {
	return w.onKubelet(name, func(k *kubelettest.Kubelet) { k.FailNetworkContinuously(uint64(perSecond)) })
}

func (w *world) networkQuiet(name string) error { return w.networkErrors(name, 0) }

func (w *world) runtimeFails(name, operation string) error {
	return w.onKubelet(name, func(k *kubelettest.Kubelet) { k.FailRuntimeContinuously(operation, 2) })
}

func (w *world) runtimeRecovers(name, operation string) error {
	return w.onKubelet(name, func(k *kubelettest.Kubelet) { k.FailRuntimeContinuously(operation, 0) })
}

func (w *world) kubeletRelists(name string, seconds float64) error {
	return w.onKubelet(name, func(k *kubelettest.Kubelet) { k.RelistContinuously(seconds) })
}

// nodeShowsSystemInfo checks the node's System Info, as kubectl describe
// node shows it.
func (w *world) nodeShowsSystemInfo(name string, t *godog.Table) error {
	rows, err := pairs(t)
	if err != nil {
		return err
	}
	n, err := w.node(name)
	if err != nil {
		return err
	}
	info := n.Status.NodeInfo
	fields := map[string]string{
		"kubelet version": info.KubeletVersion, "machine ID": info.MachineID,
		"system UUID": info.SystemUUID, "boot ID": info.BootID,
	}
	for _, r := range rows {
		got, ok := fields[r[0]]
		switch {
		case !ok:
			return fmt.Errorf("the spec asks about %q, which the steps do not know", r[0])
		case got != r[1]:
			return fmt.Errorf("%s of %s is %q, want %q", r[0], name, got, r[1])
		}
	}
	return nil
}

// onlyHeartbeats lets the time pass and checks that the log grew by
// heartbeats only.
func (w *world) onlyHeartbeats(seconds int) error {
	before, err := w.logMark()
	if err != nil {
		return err
	}
	if err := w.timePasses(seconds, "seconds"); err != nil {
		return err
	}
	now, err := w.logMark()
	if err != nil {
		return err
	}
	added := now.records[len(before.records):]
	for _, t := range eventTypes(added) {
		if t != "HeartbeatRecorded" {
			return fmt.Errorf("%d seconds in which nothing changed added %v to the log", seconds, eventTypes(added))
		}
	}
	if len(added) == 0 {
		return fmt.Errorf("%d seconds added no heartbeat to the log", seconds)
	}
	return nil
}

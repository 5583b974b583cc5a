// Package kubelettest is a simulated kubelet for tests, specs and
// benchmarks: an http.Handler serving /healthz, /healthz/syncloop,
// /stats/summary, /pods, /configz, /spec, /metrics/resource,
// /metrics/probes, /metrics/cadvisor and /metrics the way a kubelet does,
// with state a test can change (memory running out, a pod crash-looping,
// a container throttled, the network failing, the container runtime
// failing, the kubelet refusing credentials or hanging).
// Serve it with httptest.NewServer or httptest.NewTLSServer, which listen
// on loopback only.
package kubelettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// Sizes of the simulated node: 16 GiB of memory, a 100 GiB root
// filesystem that also holds the images, 4Mi PIDs.
const (
	MemoryCapacity = 16 << 30
	DiskCapacity   = 100 << 30
	Inodes         = 6_553_600
	MaxPID         = 4_194_304
	// Cores is the simulated machine's CPU count, as /spec reports it.
	Cores = 4
	// CPUUsageNanoCores is the node's CPU use New starts with: 0.47 of
	// its 4 cores.
	CPUUsageNanoCores = 468_231_907
	// Version is the kubelet version New starts with, as /metrics'
	// kubernetes_build_info reports it.
	Version = "v1.33.1"
	// MachineID and SystemUUID are the simulated machine's identity.
	MachineID  = "6f1c2a9d3e5b4c7a8d0e1f2a3b4c5d6e"
	SystemUUID = "ec2a1f5e-3b7d-4c9a-8e2f-61d0b4a7c3e9"
	// BootID is the boot New starts the machine in.
	BootID = "9c3d5e7f-1a2b-4c6d-8e0f-2a4b6c8d0e1f"
)

// Kubelet is one simulated kubelet. Its zero value is not usable; call New.
type Kubelet struct {
	mu   sync.Mutex
	name string

	started      time.Time
	memAvailable uint64
	fsAvailable  uint64
	inodesFree   uint64
	procs        int64
	pods         []corev1.Pod
	probes       map[probe]int
	evictionHard map[string]string
	configz      bool
	bootID       string
	unhealthy    string
	token        string
	overrides    map[string]response
	hold         chan struct{}
	requests     map[string]int
	cpuUsage     uint64
	version      string
	cfs          map[container]cfs
	netErrors    uint64
	opErrors     map[string]uint64
	relistSum    float64
	relists      uint64
	// Growth of the counters with every read of /metrics/cadvisor and
	// /metrics, for a trouble that goes on (see metrics.go).
	throttling     map[container]int
	netPerRead     uint64
	opsPerRead     map[string]uint64
	relistsPerRead float64
	// extra is served after the state's own answer, by path.
	extra map[string][]byte

	// Encoded answers, rebuilt only when the state changes, so that a
	// benchmark measures herd rather than the simulation.
	bodies map[string][]byte
}

type probe struct{ namespace, pod, uid, container, kind string }

type container struct{ namespace, pod, name string }

// cfs are a container's CFS scheduling periods and how many of them its
// CPU limit throttled.
type cfs struct{ periods, throttled uint64 }

type response struct {
	code int
	body string
}

// New returns a healthy kubelet for node name: 4 GiB of its 16 GiB of
// memory in use, a quarter of its disk, a few hundred processes, no pods,
// and /configz with the kubelet's default eviction thresholds.
func New(name string) *Kubelet {
	return &Kubelet{
		name:         name,
		started:      time.Date(2026, time.February, 27, 8, 14, 2, 0, time.UTC),
		memAvailable: 12 << 30,
		fsAvailable:  75 << 30,
		inodesFree:   Inodes * 3 / 4,
		procs:        612,
		probes:       map[probe]int{},
		configz:      true,
		bootID:       BootID,
		overrides:    map[string]response{},
		requests:     map[string]int{},
		cpuUsage:     CPUUsageNanoCores,
		version:      Version,
		cfs:          map[container]cfs{},
		opErrors:     map[string]uint64{},
		throttling:   map[container]int{},
		opsPerRead:   map[string]uint64{},
	}
}

// change runs fn on the kubelet's state under its lock and drops the
// encoded answers.
func (k *Kubelet) change(fn func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	fn()
	k.bodies = nil
}

// SetMemoryAvailable sets memory.available; the working set is the rest
// of MemoryCapacity.
func (k *Kubelet) SetMemoryAvailable(bytes uint64) { k.change(func() { k.memAvailable = bytes }) }

// SetDiskAvailable sets nodefs.available (and imagefs, the same disk).
func (k *Kubelet) SetDiskAvailable(bytes uint64) { k.change(func() { k.fsAvailable = bytes }) }

// SetProcesses sets the number of running processes (rlimit curproc).
func (k *Kubelet) SetProcesses(n int64) { k.change(func() { k.procs = n }) }

// SetStarted sets when the kubelet process started; a new time is a
// kubelet restart.
func (k *Kubelet) SetStarted(t time.Time) { k.change(func() { k.started = t.UTC() }) }

// SetEvictionHard sets the evictionHard /configz reports; nil reports none
// (the kubelet's defaults apply).
func (k *Kubelet) SetEvictionHard(m map[string]string) { k.change(func() { k.evictionHard = m }) }

// Reboot gives the machine a new boot ID and restarts the kubelet at t,
// as a reboot does.
func (k *Kubelet) Reboot(bootID string, t time.Time) {
	k.change(func() { k.bootID, k.started = bootID, t.UTC() })
}

// ServeConfigz switches /configz on or off (off answers 404, as the
// read-only port does).
func (k *Kubelet) ServeConfigz(on bool) { k.change(func() { k.configz = on }) }

// SetUnhealthy makes /healthz answer 500 with the given check failing
// ("syncloop" fails /healthz/syncloop too); "" makes it healthy again.
func (k *Kubelet) SetUnhealthy(check string) { k.change(func() { k.unhealthy = check }) }

// RequireToken makes every endpoint answer 401 without this bearer token.
func (k *Kubelet) RequireToken(token string) { k.change(func() { k.token = token }) }

// Respond makes path answer code with body, whatever the state says; a
// code of 0 removes the override.
func (k *Kubelet) Respond(path string, code int, body string) {
	k.change(func() {
		if code == 0 {
			delete(k.overrides, path)
			return
		}
		k.overrides[path] = response{code, body}
	})
}

// SetPods replaces the pods the kubelet runs.
func (k *Kubelet) SetPods(pods ...corev1.Pod) {
	k.change(func() { k.pods = append([]corev1.Pod(nil), pods...) })
}

// SetProbeFailures sets how often a probe of a pod's container failed.
func (k *Kubelet) SetProbeFailures(pod corev1.Pod, container, kind string, n int) {
	k.change(func() {
		k.probes[probe{pod.Namespace, pod.Name, string(pod.UID), container, kind}] = n
	})
}

// SetCPUUsage sets the node's CPU use in nanocores (/stats/summary's
// usageNanoCores).
func (k *Kubelet) SetCPUUsage(nanoCores uint64) { k.change(func() { k.cpuUsage = nanoCores }) }

// SetVersion sets the kubelet's version (/metrics' kubernetes_build_info).
func (k *Kubelet) SetVersion(v string) { k.change(func() { k.version = v }) }

// AddCPUPeriods adds CFS scheduling periods to a container of a pod
// (/metrics/cadvisor), throttled of them held back by its CPU limit.
func (k *Kubelet) AddCPUPeriods(pod corev1.Pod, name string, periods, throttled uint64) {
	k.change(func() {
		c := container{pod.Namespace, pod.Name, name}
		v := k.cfs[c]
		v.periods += periods
		v.throttled += throttled
		k.cfs[c] = v
	})
}

// AddNetworkErrors adds receive errors to the node's eth0
// (/metrics/cadvisor, id "/").
func (k *Kubelet) AddNetworkErrors(n uint64) { k.change(func() { k.netErrors += n }) }

// AddRuntimeErrors adds failed container runtime operations of a type,
// such as pull_image (/metrics' kubelet_runtime_operations_errors_total).
func (k *Kubelet) AddRuntimeErrors(operation string, n uint64) {
	k.change(func() { k.opErrors[operation] += n })
}

// AddRelists adds pod lifecycle relists that took each seconds
// (/metrics' kubelet_pleg_relist_duration_seconds).
func (k *Kubelet) AddRelists(n uint64, each float64) {
	k.change(func() {
		k.relists += n
		k.relistSum += float64(n) * each
	})
}

// Hold makes every request wait until the returned release is called: a
// kubelet that hangs.
func (k *Kubelet) Hold() (release func()) {
	ch := make(chan struct{})
	k.mu.Lock()
	k.hold = ch
	k.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			if k.hold == ch {
				k.hold = nil
			}
			k.mu.Unlock()
			close(ch)
		})
	}
}

// Requests says how many requests path received.
func (k *Kubelet) Requests(path string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requests[path]
}

// ServeHTTP implements http.Handler.
func (k *Kubelet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.requests[r.URL.Path]++
	hold := k.hold
	k.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	code, body, contentType := k.answer(r)
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_, _ = w.Write(body)
	if code == http.StatusOK {
		k.mu.Lock()
		extra := k.extra[r.URL.Path]
		if _, overridden := k.overrides[r.URL.Path]; overridden {
			extra = nil
		}
		k.mu.Unlock()
		_, _ = w.Write(extra)
	}
}

// ServeExtra makes path (/metrics/cadvisor or /metrics) answer text after
// what the state says: more metric families, so that the answer is as
// large as a real kubelet's. text is shared, not copied (many simulated
// kubelets may serve one); it must not change, and must not hold the
// families the state serves.
func (k *Kubelet) ServeExtra(path string, text []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.extra == nil {
		k.extra = map[string][]byte{}
	}
	k.extra[path] = text
}

// answer is what the kubelet says to r.
func (k *Kubelet) answer(r *http.Request) (int, []byte, string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	path := r.URL.Path
	if k.token != "" && r.Header.Get("Authorization") != "Bearer "+k.token {
		return http.StatusUnauthorized, []byte("Unauthorized"), "text/plain; charset=utf-8"
	}
	if o, ok := k.overrides[path]; ok {
		return o.code, []byte(o.body), "text/plain; charset=utf-8"
	}
	switch path {
	case "/healthz":
		if k.unhealthy != "" {
			return http.StatusInternalServerError, []byte(fmt.Sprintf("[+]ping ok\n[+]log ok\n[-]%s failed: reason withheld\nhealthz check failed\n", k.unhealthy)), "text/plain; charset=utf-8"
		}
		return http.StatusOK, []byte("ok"), "text/plain; charset=utf-8"
	case "/healthz/syncloop":
		if k.unhealthy == "syncloop" {
			return http.StatusInternalServerError, []byte("internal server error: sync Loop took longer than expected\n"), "text/plain; charset=utf-8"
		}
		return http.StatusOK, []byte("ok"), "text/plain; charset=utf-8"
	case "/configz":
		if !k.configz {
			return http.StatusNotFound, []byte("404 page not found\n"), "text/plain; charset=utf-8"
		}
	case "/stats/summary", "/pods", "/spec", "/metrics/resource", "/metrics/probes", "/metrics/cadvisor", "/metrics":
	default:
		return http.StatusNotFound, []byte("404 page not found\n"), "text/plain; charset=utf-8"
	}
	k.grow(path)
	if k.bodies == nil {
		k.bodies = k.encode()
	}
	ct := "application/json"
	if strings.HasPrefix(path, "/metrics") {
		ct = "text/plain; version=0.0.4; charset=utf-8"
	}
	return http.StatusOK, k.bodies[path], ct
}

// encode renders every answer from the state. k.mu is held.
func (k *Kubelet) encode() map[string][]byte {
	out := map[string][]byte{}
	must := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err) // the simulation's own types always encode
		}
		return b
	}
	out["/stats/summary"] = must(k.summary())
	out["/pods"] = must(corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: k.pods})
	cfg := map[string]any{"maxPods": 110, "kubeReserved": map[string]string{"memory": "512Mi"}}
	if k.evictionHard != nil {
		cfg["evictionHard"] = k.evictionHard
	}
	out["/configz"] = must(map[string]any{"kubeletconfig": cfg})
	out["/spec"] = must(map[string]any{
		"num_cores": Cores, "cpu_frequency_khz": 2_900_000, "memory_capacity": MemoryCapacity,
		"machine_id": MachineID, "system_uuid": SystemUUID, "boot_id": k.bootID,
		"cloud_provider": "Unknown", "instance_type": "Unknown", "instance_id": "None",
	})
	out["/metrics/probes"] = []byte(k.probeText())
	out["/metrics/resource"] = []byte(fmt.Sprintf(resourceText, float64(MemoryCapacity-k.memAvailable)))
	out["/metrics/cadvisor"] = []byte(k.cadvisorText())
	out["/metrics"] = []byte(k.kubeletText())
	return out
}

func (k *Kubelet) summary() statsapi.Summary {
	u64 := func(v uint64) *uint64 { return &v }
	i64 := func(v int64) *int64 { return &v }
	now := metav1.NewTime(time.Date(2026, time.March, 1, 9, 0, 0, 0, time.UTC))
	fs := &statsapi.FsStats{
		Time: now, AvailableBytes: u64(k.fsAvailable), CapacityBytes: u64(DiskCapacity),
		UsedBytes: u64(DiskCapacity - k.fsAvailable), InodesFree: u64(k.inodesFree), Inodes: u64(Inodes),
		InodesUsed: u64(Inodes - k.inodesFree),
	}
	s := statsapi.Summary{Node: statsapi.NodeStats{
		NodeName: k.name,
		SystemContainers: []statsapi.ContainerStats{
			{Name: statsapi.SystemContainerKubelet, StartTime: metav1.NewTime(k.started),
				CPU:    &statsapi.CPUStats{Time: now, UsageNanoCores: u64(41_236_512), UsageCoreNanoSeconds: u64(7_189_224_001_763)},
				Memory: &statsapi.MemoryStats{Time: now, WorkingSetBytes: u64(71_725_056)}},
		},
		StartTime: metav1.NewTime(k.started.Add(-20 * time.Second)),
		CPU:       &statsapi.CPUStats{Time: now, UsageNanoCores: u64(k.cpuUsage), UsageCoreNanoSeconds: u64(81_237_785_130_882)},
		Memory: &statsapi.MemoryStats{Time: now, AvailableBytes: u64(k.memAvailable),
			UsageBytes: u64(MemoryCapacity - k.memAvailable + 1<<30), WorkingSetBytes: u64(MemoryCapacity - k.memAvailable)},
		Fs:      fs,
		Runtime: &statsapi.RuntimeStats{ImageFs: fs},
		Rlimit:  &statsapi.RlimitStats{Time: now, MaxPID: i64(MaxPID), NumOfRunningProcesses: i64(k.procs)},
	}}
	for _, p := range k.pods {
		s.Pods = append(s.Pods, statsapi.PodStats{
			PodRef:    statsapi.PodReference{Name: p.Name, Namespace: p.Namespace, UID: string(p.UID)},
			StartTime: now,
			Memory:    &statsapi.MemoryStats{Time: now, WorkingSetBytes: u64(44_343_296)},
		})
	}
	return s
}

func (k *Kubelet) probeText() string {
	var lines []string
	for p, n := range k.probes {
		lines = append(lines, fmt.Sprintf(`prober_probe_total{container=%q,namespace=%q,pod=%q,pod_uid=%q,probe_type=%q,result="failed"} %d`,
			p.container, p.namespace, p.pod, p.uid, p.kind, n))
	}
	for _, p := range k.pods {
		for _, c := range p.Spec.Containers {
			lines = append(lines, fmt.Sprintf(`prober_probe_total{container=%q,namespace=%q,pod=%q,pod_uid=%q,probe_type="Readiness",result="successful"} 120`,
				c.Name, p.Namespace, p.Name, p.UID))
		}
	}
	sort.Strings(lines)
	return "# HELP prober_probe_total [ALPHA] Cumulative number of a liveness, readiness or startup probe for a container by result.\n" +
		"# TYPE prober_probe_total counter\n" + strings.Join(lines, "\n") + "\n"
}

const resourceText = `# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds
# TYPE node_cpu_usage_seconds_total counter
node_cpu_usage_seconds_total 81237.785130882 1772355601000
# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes
# TYPE node_memory_working_set_bytes gauge
node_memory_working_set_bytes %g 1772355601000
# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise
# TYPE resource_scrape_error gauge
resource_scrape_error 0
`

// RunningPod is a ready pod with one running container.
func RunningPod(namespace, name string) corev1.Pod {
	p := basePod(namespace, name)
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: name, Image: "registry.example.com/" + name + ":1.0", Ready: true,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(p.CreationTimestamp.Add(3 * time.Second))}},
	}}
	return p
}

// CrashLoopingPod is a pod whose one container the kubelet keeps
// restarting: restarts times so far, each ending with exit code 1, and
// now backing off.
func CrashLoopingPod(namespace, name string, restarts int32) corev1.Pod {
	p := basePod(namespace, name)
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
	finished := p.CreationTimestamp.Add(10 * time.Minute)
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: name, Image: "registry.example.com/" + name + ":1.0", RestartCount: restarts,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason:  "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off 5m0s restarting failed container=%s pod=%s_%s(%s)", name, name, namespace, p.UID),
		}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", StartedAt: metav1.NewTime(finished.Add(-2 * time.Second)), FinishedAt: metav1.NewTime(finished),
		}},
	}}
	return p
}

func basePod(namespace, name string) corev1.Pod {
	created := metav1.NewTime(time.Date(2026, time.March, 1, 8, 0, 0, 0, time.UTC))
	return corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: namespace, UID: types.UID(fmt.Sprintf("uid-%s-%s", namespace, name)),
			CreationTimestamp: created, Labels: map[string]string{"app": name},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "registry.example.com/" + name + ":1.0"}}},
		Status: corev1.PodStatus{
			HostIP: "10.20.4.17", PodIP: "10.244.3.21", StartTime: &created,
		},
	}
}

package kubelettest

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// cadvisorText renders /metrics/cadvisor: the CFS counters of the
// containers with a CPU limit (cAdvisor has none for the others) and of
// those a test gave CPU periods, and the node's interfaces' error
// counters under id "/", labelled as cAdvisor labels them. k.mu is held.
func (k *Kubelet) cadvisorText() string {
	counters := maps.Clone(k.cfs)
	for _, p := range k.pods {
		for _, c := range p.Spec.Containers {
			if _, limited := c.Resources.Limits[corev1.ResourceCPU]; limited {
				ref := container{p.Namespace, p.Name, c.Name}
				counters[ref] = k.cfs[ref]
			}
		}
	}
	var periods, throttled []string
	for c, v := range counters {
		l := fmt.Sprintf(`container=%q,id="/kubepods/burstable/pod-%s-%s/%s",image="registry.example.com/%s:1.0",name="%s",namespace=%q,pod=%q`,
			c.name, c.namespace, c.pod, c.name, c.name, c.name, c.namespace, c.pod)
		periods = append(periods, fmt.Sprintf("container_cpu_cfs_periods_total{%s} %d", l, v.periods))
		throttled = append(throttled, fmt.Sprintf("container_cpu_cfs_throttled_periods_total{%s} %d", l, v.throttled))
	}
	sort.Strings(periods)
	sort.Strings(throttled)
	var b strings.Builder
	b.WriteString("# HELP container_cpu_cfs_periods_total Number of elapsed enforcement period intervals.\n# TYPE container_cpu_cfs_periods_total counter\n")
	for _, l := range periods {
		b.WriteString(l + "\n")
	}
	b.WriteString("# HELP container_cpu_cfs_throttled_periods_total Number of throttled period intervals.\n# TYPE container_cpu_cfs_throttled_periods_total counter\n")
	for _, l := range throttled {
		b.WriteString(l + "\n")
	}
	const node = `container="",id="/",image="",interface=%q,name="",namespace="",pod=""`
	fmt.Fprintf(&b, "# HELP container_network_receive_errors_total Cumulative count of errors encountered while receiving\n# TYPE container_network_receive_errors_total counter\n"+
		"container_network_receive_errors_total{"+node+"} %d\ncontainer_network_receive_errors_total{"+node+"} 0\n", "eth0", k.netErrors, "tunl0")
	fmt.Fprintf(&b, "# HELP container_network_transmit_errors_total Cumulative count of errors encountered while transmitting\n# TYPE container_network_transmit_errors_total counter\n"+
		"container_network_transmit_errors_total{"+node+"} 0\ncontainer_network_transmit_errors_total{"+node+"} 0\n", "eth0", "tunl0")
	return b.String()
}

// kubeletText renders /metrics: the kubelet's build, its runtime's failed
// operations and its relist histogram (sum and count only). k.mu is held.
func (k *Kubelet) kubeletText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# HELP kubernetes_build_info [ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.\n"+
		"# TYPE kubernetes_build_info gauge\n"+
		"kubernetes_build_info{build_date=\"2026-01-15T10:00:00Z\",compiler=\"gc\",git_commit=\"0000000000000000000000000000000000000000\",git_tree_state=\"clean\",git_version=%q,go_version=\"go1.24.4\",major=\"1\",minor=\"33\",platform=\"linux/amd64\"} 1\n", k.version)
	b.WriteString("# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.\n# TYPE kubelet_pleg_relist_duration_seconds histogram\n")
	fmt.Fprintf(&b, "kubelet_pleg_relist_duration_seconds_bucket{le=\"+Inf\"} %d\nkubelet_pleg_relist_duration_seconds_sum %g\nkubelet_pleg_relist_duration_seconds_count %d\n",
		k.relists, k.relistSum, k.relists)
	ops := make([]string, 0, len(k.opErrors))
	for op := range k.opErrors {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	if len(ops) > 0 {
		b.WriteString("# HELP kubelet_runtime_operations_errors_total [ALPHA] Cumulative number of runtime operation errors by operation type.\n# TYPE kubelet_runtime_operations_errors_total counter\n")
	}
	for _, op := range ops {
		fmt.Fprintf(&b, "kubelet_runtime_operations_errors_total{operation_type=%q} %d\n", op, k.opErrors[op])
	}
	return b.String()
}

// readPeriods is how many CFS periods a container counts between two
// reads of a trouble that goes on: 30 s, herd's default slow poll
// interval, of the kubelet's 100 ms periods.
const readPeriods = 300

// readSeconds is the time between two reads that the counters of a
// trouble that goes on assume: herd's default slow poll interval.
const readSeconds = 30

// ThrottleContinuously makes a container of a pod count readPeriods more
// CFS periods with every read of /metrics/cadvisor, percent of them
// throttled, as if it ran on under its CPU limit; a negative percent stops
// that.
func (k *Kubelet) ThrottleContinuously(pod corev1.Pod, name string, percent int) {
	k.change(func() {
		c := container{pod.Namespace, pod.Name, name}
		if percent < 0 {
			delete(k.throttling, c)
			return
		}
		k.throttling[c] = percent
	})
}

// FailNetworkContinuously makes the node's eth0 count perSecond receive
// errors a second (times readSeconds) more with every read of
// /metrics/cadvisor; 0 stops that.
func (k *Kubelet) FailNetworkContinuously(perSecond uint64) {
	k.change(func() { k.netPerRead = perSecond * readSeconds })
}

// FailRuntimeContinuously makes the container runtime fail n more
// operations of a type with every read of /metrics; 0 stops that.
func (k *Kubelet) FailRuntimeContinuously(operation string, n uint64) {
	k.change(func() {
		if n == 0 {
			delete(k.opsPerRead, operation)
			return
		}
		k.opsPerRead[operation] = n
	})
}

// RelistContinuously makes the kubelet count readSeconds more relists
// with every read of /metrics, each taking seconds; 0 stops that.
func (k *Kubelet) RelistContinuously(seconds float64) {
	k.change(func() { k.relistsPerRead = seconds })
}

// grow counts what a trouble that goes on adds before a read of path.
// k.mu is held.
func (k *Kubelet) grow(path string) {
	for c := range k.throttling {
		if _, ok := k.cfs[c]; !ok {
			k.cfs[c] = cfs{}
			k.bodies = nil
		}
	}
	switch {
	case path == "/metrics/cadvisor" && (len(k.throttling) > 0 || k.netPerRead > 0):
		for c, percent := range k.throttling {
			v := k.cfs[c]
			v.periods += readPeriods
			v.throttled += uint64(readPeriods * percent / 100)
			k.cfs[c] = v
		}
		k.netErrors += k.netPerRead
		k.bodies = nil
	case path == "/metrics" && (len(k.opsPerRead) > 0 || k.relistsPerRead > 0):
		for op, n := range k.opsPerRead {
			k.opErrors[op] += n
		}
		if k.relistsPerRead > 0 {
			k.relists += readSeconds
			k.relistSum += readSeconds * k.relistsPerRead
		}
		k.bodies = nil
	}
}

// WithCPULimit returns p with a CPU limit on each of its containers, such
// as "500m": cAdvisor counts the CFS periods of those.
func WithCPULimit(p corev1.Pod, limit string) corev1.Pod {
	p = *p.DeepCopy()
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		c.Resources.Limits[corev1.ResourceCPU] = resource.MustParse(limit)
	}
	return p
}

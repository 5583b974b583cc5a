package kubelettest

import (
	"fmt"
	"sort"
	"strings"
)

// cadvisorText renders /metrics/cadvisor: the CFS counters of every
// container of the pods (those a test never set at zero), and the node's
// interfaces' error counters under id "/", labelled as cAdvisor labels
// them. k.mu is held.
func (k *Kubelet) cadvisorText() string {
	counters := map[container]cfs{}
	for _, p := range k.pods {
		for _, c := range p.Spec.Containers {
			counters[container{p.Namespace, p.Name, c.Name}] = cfs{}
		}
	}
	for c, v := range k.cfs {
		counters[c] = v
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

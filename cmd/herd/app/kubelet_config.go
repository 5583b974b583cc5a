package app

import "herd/adapters/kubelet"

// kubeletConfig is how herd polls kubelets: cfg.Kubelet, with the CPU
// threshold of herd's agents (--cpu-pressure-percent), so that one
// figure says when any node is short of CPU.
func kubeletConfig(cfg Config) kubelet.Config {
	k := cfg.Kubelet
	k.Signals.CPUPercent = cfg.Thresholds.CPUPercent
	return k
}

package app

import "testing"

func TestKubeletTakesTheAgentsCPUThreshold(t *testing.T) {
	cfg := DefaultConfig()
	if got := kubeletConfig(cfg).Signals.CPUPercent; got != 80 {
		t.Errorf("default CPU threshold for kubelets %d, want 80", got)
	}
	cfg.Thresholds.CPUPercent = 65
	if got := kubeletConfig(cfg).Signals.CPUPercent; got != 65 {
		t.Errorf("CPU threshold for kubelets %d, want the agents' 65", got)
	}
}

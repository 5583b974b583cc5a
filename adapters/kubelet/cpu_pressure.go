package kubelet

import (
	"fmt"

	"herd/domain"
)

// Messages of CPUPressure: the threshold and the cores, not the reading,
// which moves on every heartbeat while the status stands; the reading is
// in the heartbeat's figures.
const (
	messageCPUPressureFmt   = "CPU use is above %d%% of the node's %d cores"
	messageCPUSufficientFmt = "CPU use is at or below %d%% of the node's %d cores"
)

// cpuPressure is CPUPressure from a summary's usageNanoCores over the
// cores of /spec; false when either is unknown, so that a summary that
// omits the figure never makes the condition up.
func cpuPressure(m domain.KubeletMetrics, spec *machineSpec, percent int64) (domain.ReportedCondition, bool) {
	if m.CPUUsageNanoCores == nil || spec == nil || spec.NumCores <= 0 {
		return domain.ReportedCondition{}, false
	}
	// usage/(cores·1e9) > percent/100, in integers: no rounding at the edge.
	if *m.CPUUsageNanoCores*100 > uint64(spec.NumCores)*uint64(percent)*1e9 {
		return domain.ReportedCondition{Type: domain.ConditionCPUPressure, Status: domain.ConditionTrue,
			Reason: domain.ReasonHasInsufficientCPU, Message: fmt.Sprintf(messageCPUPressureFmt, percent, spec.NumCores)}, true
	}
	return domain.ReportedCondition{Type: domain.ConditionCPUPressure, Status: domain.ConditionFalse,
		Reason: domain.ReasonHasSufficientCPU, Message: fmt.Sprintf(messageCPUSufficientFmt, percent, spec.NumCores)}, true
}

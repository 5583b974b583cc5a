package kubelet

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// roomy is a node well clear of every default threshold: 12 GiB of 16
// free, three quarters of its disk and inodes free, 612 of 4Mi PIDs.
func roomy() domain.KubeletMetrics {
	return domain.KubeletMetrics{
		MemoryAvailableBytes: u64(12 << 30), MemoryWorkingSetBytes: u64(4 << 30),
		NodeFSAvailableBytes: u64(75 << 30), NodeFSCapacityBytes: u64(100 << 30),
		NodeFSInodesFree: u64(750), NodeFSInodes: u64(1000),
		ImageFSAvailableBytes: u64(75 << 30), ImageFSCapacityBytes: u64(100 << 30),
		ImageFSInodesFree: u64(750), ImageFSInodes: u64(1000),
		RlimitMaxPID: i64(4194304), RlimitCurProc: i64(612),
	}
}

var (
	memOK  = domain.ReportedCondition{Type: domain.ConditionMemoryPressure, Status: domain.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"}
	diskOK = domain.ReportedCondition{Type: domain.ConditionDiskPressure, Status: domain.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"}
	pidOK  = domain.ReportedCondition{Type: domain.ConditionPIDPressure, Status: domain.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"}
	cpuOK  = domain.ReportedCondition{Type: domain.ConditionCPUPressure, Status: domain.ConditionFalse, Reason: domain.ReasonHasSufficientCPU, Message: "CPU use is at or below 80% of the node's 4 cores"}
	memLow = func(msg string) domain.ReportedCondition {
		return domain.ReportedCondition{Type: domain.ConditionMemoryPressure, Status: domain.ConditionTrue, Reason: "KubeletHasInsufficientMemory", Message: msg}
	}
	diskLow = func(msg string) domain.ReportedCondition {
		return domain.ReportedCondition{Type: domain.ConditionDiskPressure, Status: domain.ConditionTrue, Reason: "KubeletHasDiskPressure", Message: msg}
	}
	pidLow = func(msg string) domain.ReportedCondition {
		return domain.ReportedCondition{Type: domain.ConditionPIDPressure, Status: domain.ConditionTrue, Reason: "KubeletHasInsufficientPID", Message: msg}
	}
)

func TestPressureConditions(t *testing.T) {
	configured, _ := ParseEvictionHard(map[string]string{
		"memory.available": "500Mi", "nodefs.available": "10%", "imagefs.inodesFree": "5%", "pid.available": "1000",
	})
	tests := []struct {
		name       string
		change     func(*domain.KubeletMetrics)
		thresholds []Threshold
		want       []domain.ReportedCondition
	}{
		{"roomy, by the defaults", func(*domain.KubeletMetrics) {}, DefaultThresholds(), []domain.ReportedCondition{memOK, diskOK, pidOK}},
		{"memory just below 100Mi", func(m *domain.KubeletMetrics) { m.MemoryAvailableBytes = u64(100<<20 - 1) },
			DefaultThresholds(), []domain.ReportedCondition{memLow("memory.available is below the eviction threshold 100Mi"), diskOK, pidOK}},
		{"memory exactly at 100Mi is not pressure", func(m *domain.KubeletMetrics) { m.MemoryAvailableBytes = u64(100 << 20) },
			DefaultThresholds(), []domain.ReportedCondition{memOK, diskOK, pidOK}},
		{"the kubelet's own threshold, not the default", func(m *domain.KubeletMetrics) { m.MemoryAvailableBytes = u64(400 << 20) },
			configured, []domain.ReportedCondition{memLow("memory.available is below the eviction threshold 500Mi"), diskOK, pidOK}},
		{"nodefs below 10% and image inodes below 15%", func(m *domain.KubeletMetrics) {
			m.NodeFSAvailableBytes, m.ImageFSAvailableBytes = u64(9<<30), u64(14<<30)
		}, DefaultThresholds(), []domain.ReportedCondition{memOK, diskLow("imagefs.available is below the eviction threshold 15%; nodefs.available is below the eviction threshold 10%"), pidOK}},
		{"inodes running out", func(m *domain.KubeletMetrics) { m.NodeFSInodesFree = u64(49) },
			DefaultThresholds(), []domain.ReportedCondition{memOK, diskLow("nodefs.inodesFree is below the eviction threshold 5%"), pidOK}},
		{"PIDs running out", func(m *domain.KubeletMetrics) { m.RlimitCurProc = i64(4194304 - 999) },
			configured, []domain.ReportedCondition{memOK, diskOK, pidLow("pid.available is below the eviction threshold 1000")}},
		{"no summary figures at all: nothing is claimed", func(m *domain.KubeletMetrics) { *m = domain.KubeletMetrics{} },
			DefaultThresholds(), []domain.ReportedCondition{pidOK}},
		{"memory without its working set: a percentage cannot be checked", func(m *domain.KubeletMetrics) { m.MemoryWorkingSetBytes = nil },
			mustParse(t, map[string]string{"memory.available": "5%"}), []domain.ReportedCondition{memOK, diskOK, pidOK}[1:]},
		{"but an absolute one can", func(m *domain.KubeletMetrics) { m.MemoryWorkingSetBytes = nil },
			DefaultThresholds(), []domain.ReportedCondition{memOK, diskOK, pidOK}},
		{"a missing image filesystem leaves DiskPressure unclaimed unless nodefs is low", func(m *domain.KubeletMetrics) {
			m.ImageFSAvailableBytes, m.ImageFSCapacityBytes = nil, nil
		}, DefaultThresholds(), []domain.ReportedCondition{memOK, pidOK}},
		{"... and claimed when it is", func(m *domain.KubeletMetrics) {
			m.ImageFSAvailableBytes, m.ImageFSCapacityBytes, m.NodeFSAvailableBytes = nil, nil, u64(1<<30)
		}, DefaultThresholds(), []domain.ReportedCondition{memOK, diskLow("nodefs.available is below the eviction threshold 10%"), pidOK}},
		{"no thresholds: no pressure", func(m *domain.KubeletMetrics) { m.MemoryAvailableBytes = u64(0) },
			nil, []domain.ReportedCondition{memOK, diskOK, pidOK}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := roomy()
			tt.change(&m)
			if diff := cmp.Diff(tt.want, pressureConditions(m, tt.thresholds)); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func mustParse(t *testing.T, m map[string]string) []Threshold {
	t.Helper()
	th, errs := ParseEvictionHard(m)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return th
}

func TestBackoff(t *testing.T) {
	const base, most = 10_000, 120_000 // in any unit
	var got []int64
	for failures := 1; failures <= 6; failures++ {
		got = append(got, int64(backoff(base, most, failures, 0.5)))
	}
	if diff := cmp.Diff([]int64{10_000, 20_000, 40_000, 80_000, 120_000, 120_000}, got); diff != "" {
		t.Errorf("backoff without jitter (-want +got):\n%s", diff)
	}
	if lo, hi := backoff(base, most, 3, 0), backoff(base, most, 3, 0.999999); lo != 32_000 || hi < 47_999 || hi > 48_000 {
		t.Errorf("jitter spreads 40000 to [%d, %d], want [32000, 48000)", lo, hi)
	}
}

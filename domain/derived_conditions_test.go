package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDerivedConditionThresholds(t *testing.T) {
	tests := []struct {
		name       string
		change     func(m *Metrics)
		thresholds Thresholds
		want       ReportedCondition
	}{
		{
			name:   "memory exactly at 90% is no pressure",
			change: func(m *Metrics) { m.MemoryAvailableBytes = 100 },
			want:   ReportedCondition{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "HasSufficientMemory", Message: "memory used at or below the 90% threshold"},
		},
		{
			name:   "memory just above 90% is pressure",
			change: func(m *Metrics) { m.MemoryAvailableBytes = 99 },
			want:   ReportedCondition{Type: ConditionMemoryPressure, Status: ConditionTrue, Reason: "HasInsufficientMemory", Message: "memory used above the 90% threshold"},
		},
		{
			name:   "memory at 90% of 9 EB is exact, no float rounding",
			change: func(m *Metrics) { m.MemoryTotalBytes, m.MemoryAvailableBytes = 9e18, 9e17 },
			want:   ReportedCondition{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "HasSufficientMemory", Message: "memory used at or below the 90% threshold"},
		},
		{
			name:   "one byte above 90% of 9 EB is pressure, no overflow",
			change: func(m *Metrics) { m.MemoryTotalBytes, m.MemoryAvailableBytes = 9e18, 9e17-1 },
			want:   ReportedCondition{Type: ConditionMemoryPressure, Status: ConditionTrue, Reason: "HasInsufficientMemory", Message: "memory used above the 90% threshold"},
		},
		{
			name:       "a configured memory threshold",
			change:     func(m *Metrics) { m.MemoryAvailableBytes = 499 },
			thresholds: Thresholds{MemoryPercent: 50},
			want:       ReportedCondition{Type: ConditionMemoryPressure, Status: ConditionTrue, Reason: "HasInsufficientMemory", Message: "memory used above the 50% threshold"},
		},
		{
			name:       "at 100% nothing is pressure",
			change:     func(m *Metrics) { m.MemoryAvailableBytes = 0 },
			thresholds: Thresholds{MemoryPercent: 100},
			want:       ReportedCondition{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "HasSufficientMemory", Message: "memory used at or below the 100% threshold"},
		},
		{
			name:   "disk exactly at 90% is no pressure",
			change: func(m *Metrics) { m.DiskAvailableBytes = 200 },
			want:   ReportedCondition{Type: ConditionDiskPressure, Status: ConditionFalse, Reason: "HasNoDiskPressure", Message: "disk used at or below the 90% threshold"},
		},
		{
			name:   "disk just above 90% is pressure",
			change: func(m *Metrics) { m.DiskAvailableBytes = 199 },
			want:   ReportedCondition{Type: ConditionDiskPressure, Status: ConditionTrue, Reason: "HasDiskPressure", Message: "disk used above the 90% threshold"},
		},
		{
			name:   "PIDs exactly at 90% is no pressure",
			change: func(m *Metrics) { m.PIDsCurrent = 900 },
			want:   ReportedCondition{Type: ConditionPIDPressure, Status: ConditionFalse, Reason: "HasSufficientPID", Message: "PIDs in use at or below the 90% threshold"},
		},
		{
			name:   "PIDs just above 90% is pressure",
			change: func(m *Metrics) { m.PIDsCurrent = 901 },
			want:   ReportedCondition{Type: ConditionPIDPressure, Status: ConditionTrue, Reason: "HasInsufficientPID", Message: "PIDs in use above the 90% threshold"},
		},
		{
			name:   "load exactly at twice the CPUs is normal",
			change: func(m *Metrics) { m.Load1 = 8 },
			want:   ReportedCondition{Type: ConditionHighLoad, Status: ConditionFalse, Reason: "NormalLoad", Message: "load1 at or below the threshold of 8 (2 per CPU, 4 CPUs)"},
		},
		{
			name:   "load just above twice the CPUs is high",
			change: func(m *Metrics) { m.Load1 = 8.01 },
			want:   ReportedCondition{Type: ConditionHighLoad, Status: ConditionTrue, Reason: "HighLoad", Message: "load1 above the threshold of 8 (2 per CPU, 4 CPUs)"},
		},
		{
			name:       "a configured load per CPU",
			change:     func(m *Metrics) { m.Load1 = 4.5 },
			thresholds: Thresholds{LoadPerCPU: 1},
			want:       ReportedCondition{Type: ConditionHighLoad, Status: ConditionTrue, Reason: "HighLoad", Message: "load1 above the threshold of 4 (1 per CPU, 4 CPUs)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := healthy()
			tc.change(m)
			conds := deriveConditions(*m, tc.thresholds.withDefaults())
			got, ok := findReported(conds, tc.want.Type)
			if !ok {
				t.Fatalf("no %s among %v", tc.want.Type, conds)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("condition (-want +got):\n%s", diff)
			}
		})
	}
}

func TestThresholdDefaults(t *testing.T) {
	got := Thresholds{DiskPercent: 80}.withDefaults()
	want := Thresholds{MemoryPercent: 90, DiskPercent: 80, PIDPercent: 90, LoadPerCPU: 2, CPUPercent: 80}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("thresholds (-want +got):\n%s", diff)
	}
}

func findReported(cs []ReportedCondition, t ConditionType) (ReportedCondition, bool) {
	for _, c := range cs {
		if c.Type == t {
			return c, true
		}
	}
	return ReportedCondition{}, false
}

func TestHealthyStatus(t *testing.T) {
	for _, tc := range []struct {
		t       ConditionType
		s       ConditionStatus
		trouble bool
	}{
		{ConditionReady, ConditionTrue, false},
		{ConditionReady, ConditionFalse, true},
		{ConditionReady, ConditionUnknown, true},
		{ConditionKubeletReachable, ConditionTrue, false},
		{ConditionServicesHealthy, ConditionFalse, true},
		{ConditionMemoryPressure, ConditionTrue, true},
		{ConditionMemoryPressure, ConditionFalse, false},
		{ConditionMemoryPressure, ConditionUnknown, true},
		{ConditionCPUThrottling, ConditionTrue, true},
		{"KernelDeadlock", ConditionTrue, true},
		{"KernelDeadlock", ConditionFalse, false},
	} {
		if got := SignalsTrouble(tc.t, tc.s); got != tc.trouble {
			t.Errorf("SignalsTrouble(%s, %s) = %v, want %v", tc.t, tc.s, got, tc.trouble)
		}
	}
}

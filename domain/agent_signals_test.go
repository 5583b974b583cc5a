package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAgentSignalConditions(t *testing.T) {
	tests := []struct {
		name       string
		change     func(m *Metrics)
		thresholds Thresholds
		want       ReportedCondition
	}{
		{
			name:   "CPU exactly at 80% is no pressure",
			change: func(m *Metrics) { m.CPUPercent = ptr(80.0) },
			want:   ReportedCondition{Type: ConditionCPUPressure, Status: ConditionFalse, Reason: ReasonHasSufficientCPU, Message: "CPU used at or below the 80% threshold"},
		},
		{
			name:   "CPU just above 80% is pressure",
			change: func(m *Metrics) { m.CPUPercent = ptr(80.04) },
			want:   ReportedCondition{Type: ConditionCPUPressure, Status: ConditionTrue, Reason: ReasonHasInsufficientCPU, Message: "CPU used above the 80% threshold"},
		},
		{
			name:       "a configured CPU threshold",
			change:     func(m *Metrics) { m.CPUPercent = ptr(51.5) },
			thresholds: Thresholds{CPUPercent: 50},
			want:       ReportedCondition{Type: ConditionCPUPressure, Status: ConditionTrue, Reason: ReasonHasInsufficientCPU, Message: "CPU used above the 50% threshold"},
		},
		{
			name: "one link up is a network",
			change: func(m *Metrics) {
				m.Links = []NetworkLink{{Name: "eth0", State: "up", Up: true}, {Name: "eth1", State: "down"}}
			},
			want: ReportedCondition{Type: ConditionNetworkUnavailable, Status: ConditionFalse, Reason: ReasonNetworkAvailable, Message: "links up: eth0"},
		},
		{
			name: "no link up is no network, naming the links down",
			change: func(m *Metrics) {
				m.Links = []NetworkLink{{Name: "eth0", State: "down"}, {Name: "wlan0", State: "dormant"}}
			},
			want: ReportedCondition{Type: ConditionNetworkUnavailable, Status: ConditionTrue, Reason: ReasonNoLinkUp, Message: "no link is up: eth0 (down), wlan0 (dormant)"},
		},
		{
			name: "every watched service running",
			change: func(m *Metrics) {
				m.Services = []ServiceState{{Name: "ssh.service", Status: ServiceRunning, State: "active/running"}}
			},
			want: ReportedCondition{Type: ConditionServicesHealthy, Status: ConditionTrue, Reason: ReasonServicesRunning, Message: "every watched service is running: ssh.service"},
		},
		{
			name: "a failed and a missing service are named with their states",
			change: func(m *Metrics) {
				m.Services = []ServiceState{
					{Name: "ssh.service", Status: ServiceRunning, State: "active/running"},
					{Name: "nginx.service", Status: ServiceFailed, State: "failed/failed"},
					{Name: "nosuch.service", Status: ServiceFailed, State: ServiceNotFound},
					{Name: "cron.service", Status: ServiceUnknown, State: "cannot reach systemd"},
				}
			},
			want: ReportedCondition{Type: ConditionServicesHealthy, Status: ConditionFalse, Reason: ReasonServicesFailed,
				Message: "2 of 4 watched services are not running: nginx.service is failed/failed; nosuch.service does not exist"},
		},
		{
			name: "services the agent cannot see are Unknown",
			change: func(m *Metrics) {
				m.Services = []ServiceState{
					{Name: "ssh.service", Status: ServiceUnknown, State: "cannot reach systemd: no such file"},
					{Name: "cron.service", Status: ServiceUnknown, State: "cannot reach systemd: no such file"},
				}
			},
			want: ReportedCondition{Type: ConditionServicesHealthy, Status: ConditionUnknown, Reason: ReasonServicesUnknown,
				Message: "the state of 2 of 2 watched services is unknown: ssh.service, cron.service (cannot reach systemd: no such file)"},
		},
		{
			name: "services unknown for different reasons are grouped by reason",
			change: func(m *Metrics) {
				m.Services = []ServiceState{
					{Name: "ssh", Status: ServiceUnknown, State: "cannot run svcs: signal: killed"},
					{Name: "cron", Status: ServiceRunning, State: "online"},
					{Name: "ntp", Status: ServiceUnknown, State: "svcs ntp line 1 \"online\": want a state and an FMRI"},
					{Name: "nfs/server", Status: ServiceUnknown, State: "cannot run svcs: signal: killed"},
				}
			},
			want: ReportedCondition{Type: ConditionServicesHealthy, Status: ConditionUnknown, Reason: ReasonServicesUnknown,
				Message: "the state of 3 of 4 watched services is unknown: ssh, nfs/server (cannot run svcs: signal: killed); ntp (svcs ntp line 1 \"online\": want a state and an FMRI)"},
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

// TestUnreportedSignalsDeriveNothing: an older agent, or a Pico, that
// reports none of CPU, links and services gets none of their conditions.
func TestUnreportedSignalsDeriveNothing(t *testing.T) {
	conds := deriveConditions(*healthy(), Thresholds{}.withDefaults())
	var types []ConditionType
	for _, c := range conds {
		types = append(types, c.Type)
	}
	want := []ConditionType{ConditionReady, ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

func TestAgentSignalConditionOrder(t *testing.T) {
	m := healthy()
	m.CPUPercent = ptr(10.0)
	m.Links = []NetworkLink{{Name: "eth0", State: "up", Up: true}}
	m.Services = []ServiceState{{Name: "ssh.service", Status: ServiceRunning, State: "active/running"}}
	var types []ConditionType
	for _, c := range deriveConditions(*m, Thresholds{}.withDefaults()) {
		types = append(types, c.Type)
	}
	want := []ConditionType{ConditionReady, ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad,
		ConditionCPUPressure, ConditionNetworkUnavailable, ConditionServicesHealthy}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

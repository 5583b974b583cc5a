package domain

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHeartbeatValidation(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *RecordHeartbeat)
		want   []FieldError
	}{
		{name: "valid metrics", change: func(*RecordHeartbeat) {}},
		{name: "full and idle is valid", change: func(c *RecordHeartbeat) {
			c.Metrics.MemoryAvailableBytes, c.Metrics.DiskAvailableBytes, c.Metrics.PIDsCurrent = 0, 2000, 1000
			c.Metrics.Load1, c.Metrics.Load5, c.Metrics.Load15, c.Metrics.ActiveJobs = 0, 0, 0, 0
		}},
		{
			name:   "missing metrics are required",
			change: func(c *RecordHeartbeat) { c.Metrics = &Metrics{} },
			want: []FieldError{
				{Field: "metrics.cpuCount", Reason: "required"},
				{Field: "metrics.memoryTotalBytes", Reason: "required"},
				{Field: "metrics.diskTotalBytes", Reason: "required"},
				{Field: "metrics.pidsMax", Reason: "required"},
			},
		},
		{
			name: "negative totals",
			change: func(c *RecordHeartbeat) {
				*c.Metrics = Metrics{CPUCount: -1, MemoryTotalBytes: -2, DiskTotalBytes: -3, PIDsMax: -4}
			},
			want: []FieldError{
				{Field: "metrics.cpuCount", Value: "-1", Reason: "must be greater than zero"},
				{Field: "metrics.memoryTotalBytes", Value: "-2", Reason: "must be greater than zero"},
				{Field: "metrics.diskTotalBytes", Value: "-3", Reason: "must be greater than zero"},
				{Field: "metrics.pidsMax", Value: "-4", Reason: "must be greater than zero"},
			},
		},
		{
			name: "available and current outside their totals",
			change: func(c *RecordHeartbeat) {
				c.Metrics.MemoryAvailableBytes, c.Metrics.DiskAvailableBytes = 1001, -1
				c.Metrics.PIDsCurrent, c.Metrics.ActiveJobs = 1001, -1
			},
			want: []FieldError{
				{Field: "metrics.memoryAvailableBytes", Value: "1001", Reason: "must not exceed memoryTotalBytes (1000)"},
				{Field: "metrics.diskAvailableBytes", Value: "-1", Reason: "must not be negative"},
				{Field: "metrics.pidsCurrent", Value: "1001", Reason: "must not exceed pidsMax (1000)"},
				{Field: "metrics.activeJobs", Value: "-1", Reason: "must not be negative"},
			},
		},
		{
			name: "the other way round",
			change: func(c *RecordHeartbeat) {
				c.Metrics.MemoryAvailableBytes, c.Metrics.DiskAvailableBytes, c.Metrics.PIDsCurrent = -1, 2001, -1
			},
			want: []FieldError{
				{Field: "metrics.memoryAvailableBytes", Value: "-1", Reason: "must not be negative"},
				{Field: "metrics.diskAvailableBytes", Value: "2001", Reason: "must not exceed diskTotalBytes (2000)"},
				{Field: "metrics.pidsCurrent", Value: "-1", Reason: "must not be negative"},
			},
		},
		{
			name: "loads negative or not finite",
			change: func(c *RecordHeartbeat) {
				c.Metrics.Load1, c.Metrics.Load5, c.Metrics.Load15 = math.NaN(), math.Inf(1), -0.5
			},
			want: []FieldError{
				{Field: "metrics.load1", Value: "NaN", Reason: "must be a finite number"},
				{Field: "metrics.load5", Value: "+Inf", Reason: "must be a finite number"},
				{Field: "metrics.load15", Value: "-0.5", Reason: "must not be negative"},
			},
		},
		{
			name: "CPU use, links and services as reported are valid",
			change: func(c *RecordHeartbeat) {
				c.Metrics.CPUPercent = ptr(100.0)
				c.Metrics.Links = []NetworkLink{{Name: "eth0", State: "up", Up: true}}
				c.Metrics.Services = []ServiceState{{Name: "ssh.service", Status: ServiceUnknown}}
			},
		},
		{
			name:   "CPU use outside 0 to 100 or not finite",
			change: func(c *RecordHeartbeat) { c.Metrics.CPUPercent = ptr(100.5) },
			want:   []FieldError{{Field: "metrics.cpuPercent", Value: "100.5", Reason: "must be between 0 and 100"}},
		},
		{
			name:   "negative CPU use",
			change: func(c *RecordHeartbeat) { c.Metrics.CPUPercent = ptr(-1.0) },
			want:   []FieldError{{Field: "metrics.cpuPercent", Value: "-1", Reason: "must be between 0 and 100"}},
		},
		{
			name:   "CPU use not a number",
			change: func(c *RecordHeartbeat) { c.Metrics.CPUPercent = ptr(math.NaN()) },
			want:   []FieldError{{Field: "metrics.cpuPercent", Value: "NaN", Reason: "must be between 0 and 100"}},
		},
		{
			name: "links and services without a name, twice, or with a bad status",
			change: func(c *RecordHeartbeat) {
				c.Metrics.Links = []NetworkLink{{Name: "eth0"}, {}, {Name: "eth0"}}
				c.Metrics.Services = []ServiceState{
					{Name: "ssh.service", Status: ServiceRunning}, {Status: ServiceFailed},
					{Name: "ssh.service", Status: "running"}, {Name: "cron.service"},
				}
			},
			want: []FieldError{
				{Field: "metrics.links[1].name", Reason: "required"},
				{Field: "metrics.links[2].name", Value: "eth0", Reason: "Duplicate value"},
				{Field: "metrics.services[1].name", Reason: "required"},
				{Field: "metrics.services[2].name", Value: "ssh.service", Reason: "Duplicate value"},
				{Field: "metrics.services[2].status", Value: "running", Reason: `supported values: "Running", "Failed", "Unknown"`},
				{Field: "metrics.services[3].status", Reason: "required"},
			},
		},
		{
			name: "reported conditions without type, twice, or with a bad status",
			change: func(c *RecordHeartbeat) {
				c.Metrics = nil
				c.Reported = []ReportedCondition{
					{Type: ConditionReady, Status: ConditionTrue},
					{Status: ConditionTrue},
					{Type: ConditionReady, Status: "true"},
					{Type: ConditionDiskPressure},
				}
			},
			want: []FieldError{
				{Field: "status.conditions[1].type", Reason: "required"},
				{Field: "status.conditions[2].type", Value: "Ready", Reason: "Duplicate value"},
				{Field: "status.conditions[2].status", Value: "true", Reason: `supported values: "True", "False", "Unknown"`},
				{Field: "status.conditions[3].status", Reason: "required"},
			},
		},
		{
			name: "more condition types than a node has",
			change: func(c *RecordHeartbeat) {
				c.Metrics = nil
				for i := range MaxReportedConditions + 1 {
					c.Reported = append(c.Reported, ReportedCondition{Type: ConditionType(fmt.Sprintf("Flag%04d", i)), Status: ConditionTrue})
				}
			},
			want: []FieldError{
				{Field: "status.conditions", Value: "65", Reason: "Too many: must have at most 64 items"},
			},
		},
		{
			name: "condition strings longer than Kubernetes allows",
			change: func(c *RecordHeartbeat) {
				c.Metrics = nil
				c.Reported = []ReportedCondition{
					{Type: ConditionType(strings.Repeat("t", MaxConditionTypeLength+1)), Status: ConditionTrue},
					{Type: ConditionReady, Status: ConditionTrue, Reason: strings.Repeat("r", MaxConditionReasonLength+1)},
					{Type: ConditionDiskPressure, Status: ConditionFalse, Message: strings.Repeat("m", MaxConditionMessageLength+1)},
				}
			},
			want: []FieldError{
				{Field: "status.conditions[0].type", Reason: "Too long: may not be more than 317 bytes"},
				{Field: "status.conditions[1].reason", Reason: "Too long: may not be more than 1024 bytes"},
				{Field: "status.conditions[2].message", Reason: "Too long: may not be more than 32768 bytes"},
			},
		},
		{
			name: "many long messages together",
			change: func(c *RecordHeartbeat) {
				c.Metrics = nil
				for i := range 9 {
					c.Reported = append(c.Reported, ReportedCondition{
						Type: ConditionType(fmt.Sprintf("Flag%d", i)), Status: ConditionTrue, Message: strings.Repeat("m", MaxConditionMessageLength),
					})
				}
			},
			want: []FieldError{
				{Field: "status.conditions", Reason: "Too long: must have at most 262144 bytes"},
			},
		},
		{
			name: "negative or non-finite thresholds",
			change: func(c *RecordHeartbeat) {
				c.Thresholds = Thresholds{MemoryPercent: -1, DiskPercent: -2, PIDPercent: -3, LoadPerCPU: math.Inf(-1)}
			},
			want: []FieldError{
				{Field: "thresholds.memoryPercent", Value: "-1", Reason: "must not be negative"},
				{Field: "thresholds.diskPercent", Value: "-2", Reason: "must not be negative"},
				{Field: "thresholds.pidPercent", Value: "-3", Reason: "must not be negative"},
				{Field: "thresholds.loadPerCPU", Value: "-Inf", Reason: "must be a finite number, not negative"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := RecordHeartbeat{Metrics: healthy()}
			tc.change(&cmd)
			events, err := DecideNode(registered("web-01"), cmd, at(10))
			if err != nil && events != nil {
				t.Errorf("rejected heartbeat returned events %v", events)
			}
			if diff := cmp.Diff(tc.want, fieldErrors(t, err)); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
		})
	}
}

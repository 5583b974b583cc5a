package domain

import (
	"fmt"
	"math"
	"strconv"
)

// Field paths in a rejected heartbeat: metrics.<field> for herd's agent
// protocol (metrics.cpuCount, metrics.memoryAvailableBytes, ...),
// status.conditions[i].type and .status for reported conditions, as in a
// Kubernetes Node status, and thresholds.<field> for the configuration.

// validate collects every problem with the heartbeat into one
// *InvalidError, or returns nil.
func (c RecordHeartbeat) validate(node string) error {
	var errs []FieldError
	if c.Metrics != nil {
		errs = append(errs, metricsProblems(*c.Metrics)...)
	}
	errs = append(errs, c.Kubelet.problems()...)
	errs = append(errs, reportedProblems(c.Reported)...)
	errs = append(errs, thresholdProblems(c.Thresholds)...)
	return invalid("Node", node, errs)
}

// metricsProblems checks an agent's metrics. A zero total means the agent
// did not measure it, which herd cannot derive a condition from.
func metricsProblems(m Metrics) []FieldError {
	var errs []FieldError
	add := func(field, value, reason string) {
		errs = append(errs, FieldError{Field: "metrics." + field, Value: value, Reason: reason})
	}
	positive := func(field string, v int64) {
		switch {
		case v == 0:
			add(field, "", "required")
		case v < 0:
			add(field, strconv.FormatInt(v, 10), "must be greater than zero")
		}
	}
	within := func(field string, v int64, totalField string, total int64) {
		switch {
		case v < 0:
			add(field, strconv.FormatInt(v, 10), "must not be negative")
		case total > 0 && v > total:
			add(field, strconv.FormatInt(v, 10), fmt.Sprintf("must not exceed %s (%d)", totalField, total))
		}
	}
	load := func(field string, v float64) {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			add(field, strconv.FormatFloat(v, 'g', -1, 64), "must be a finite number")
		case v < 0:
			add(field, strconv.FormatFloat(v, 'g', -1, 64), "must not be negative")
		}
	}

	positive("cpuCount", int64(m.CPUCount))
	load("load1", m.Load1)
	load("load5", m.Load5)
	load("load15", m.Load15)
	positive("memoryTotalBytes", m.MemoryTotalBytes)
	within("memoryAvailableBytes", m.MemoryAvailableBytes, "memoryTotalBytes", m.MemoryTotalBytes)
	positive("diskTotalBytes", m.DiskTotalBytes)
	within("diskAvailableBytes", m.DiskAvailableBytes, "diskTotalBytes", m.DiskTotalBytes)
	positive("pidsMax", m.PIDsMax)
	within("pidsCurrent", m.PIDsCurrent, "pidsMax", m.PIDsMax)
	if m.ActiveJobs < 0 {
		add("activeJobs", strconv.Itoa(m.ActiveJobs), "must not be negative")
	}
	if p := m.CPUPercent; p != nil && !(*p >= 0 && *p <= 100) { // NaN fails both
		add("cpuPercent", strconv.FormatFloat(*p, 'g', -1, 64), "must be between 0 and 100")
	}
	errs = append(errs, namedProblems("metrics.links", m.Links, func(l NetworkLink) string { return l.Name })...)
	errs = append(errs, namedProblems("metrics.services", m.Services, func(s ServiceState) string { return s.Name })...)
	for i, s := range m.Services {
		switch s.Status {
		case ServiceRunning, ServiceFailed, ServiceUnknown:
		case "":
			errs = append(errs, FieldError{Field: fmt.Sprintf("metrics.services[%d].status", i), Reason: "required"})
		default:
			errs = append(errs, FieldError{
				Field: fmt.Sprintf("metrics.services[%d].status", i), Value: string(s.Status),
				Reason: `supported values: "Running", "Failed", "Unknown"`,
			})
		}
	}
	return errs
}

// namedProblems checks that every item of a reported list has a name and
// no name appears twice; path is the list's field path.
func namedProblems[T any](path string, items []T, name func(T) string) []FieldError {
	var errs []FieldError
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		field := fmt.Sprintf("%s[%d].name", path, i)
		switch n := name(it); {
		case n == "":
			errs = append(errs, FieldError{Field: field, Reason: "required"})
		case seen[n]:
			errs = append(errs, FieldError{Field: field, Value: n, Reason: "Duplicate value"})
		default:
			seen[n] = true
		}
	}
	return errs
}

// Limits on what one status report may carry. A node has a handful of
// condition types (the kubelet reports five; node-problem-detector adds a
// few more), and every condition whose status flips is an event herd keeps
// for ever, so a report of thousands would cost the log and every watcher
// far more than it says. Kubernetes bounds a condition's strings in
// metav1.Condition's validation; herd applies the same bounds to a node's.
const (
	// MaxReportedConditions is how many conditions one report may carry.
	MaxReportedConditions = 64
	// MaxConditionTypeLength is a qualified name's longest: a 253-byte
	// prefix, a slash and a 63-byte name.
	MaxConditionTypeLength = 253 + 1 + 63
	// MaxConditionReasonLength is metav1.Condition's limit on a reason.
	MaxConditionReasonLength = 1024
	// MaxConditionMessageLength is metav1.Condition's limit on a message.
	MaxConditionMessageLength = 32768
	// MaxConditionsBytes bounds the conditions' strings together, as
	// Kubernetes bounds an object's annotations (256 KiB): a report of
	// many long messages is refused as a whole.
	MaxConditionsBytes = 256 * 1024
)

// reportedProblems checks reported conditions: there are not too many,
// each has a type, no type appears twice, each status is True, False or
// Unknown, and no string is longer than Kubernetes allows.
func reportedProblems(cs []ReportedCondition) []FieldError {
	if len(cs) > MaxReportedConditions {
		// Checking each of thousands would only make a longer answer.
		return []FieldError{{
			Field: "status.conditions", Value: strconv.Itoa(len(cs)),
			Reason: fmt.Sprintf("Too many: must have at most %d items", MaxReportedConditions),
		}}
	}
	var errs []FieldError
	seen := make(map[ConditionType]bool, len(cs))
	total := 0
	// A condition's path is written only into a problem found with it.
	at := func(i int, field string) string { return fmt.Sprintf("status.conditions[%d].%s", i, field) }
	tooLong := func(i int, field string, n, limit int) {
		if n > limit {
			errs = append(errs, FieldError{Field: at(i, field), Reason: fmt.Sprintf("Too long: may not be more than %d bytes", limit)})
		}
	}
	for i, c := range cs {
		switch {
		case c.Type == "":
			errs = append(errs, FieldError{Field: at(i, "type"), Reason: "required"})
		case len(c.Type) > MaxConditionTypeLength:
			tooLong(i, "type", len(c.Type), MaxConditionTypeLength)
		case seen[c.Type]:
			errs = append(errs, FieldError{Field: at(i, "type"), Value: string(c.Type), Reason: "Duplicate value"})
		}
		tooLong(i, "reason", len(c.Reason), MaxConditionReasonLength)
		tooLong(i, "message", len(c.Message), MaxConditionMessageLength)
		total += len(c.Type) + len(c.Reason) + len(c.Message)
		seen[c.Type] = true
		switch c.Status {
		case ConditionTrue, ConditionFalse, ConditionUnknown:
		case "":
			errs = append(errs, FieldError{Field: at(i, "status"), Reason: "required"})
		default:
			errs = append(errs, FieldError{
				Field: at(i, "status"), Value: string(c.Status),
				Reason: `supported values: "True", "False", "Unknown"`,
			})
		}
	}
	if total > MaxConditionsBytes {
		errs = append(errs, FieldError{
			Field:  "status.conditions",
			Reason: fmt.Sprintf("Too long: must have at most %d bytes", MaxConditionsBytes),
		})
	}
	return errs
}

// thresholdProblems checks the thresholds a heartbeat is judged by. They
// come from herd's configuration, which should have caught these already.
func thresholdProblems(t Thresholds) []FieldError {
	var errs []FieldError
	percent := func(field string, v int64) {
		if v < 0 {
			errs = append(errs, FieldError{Field: "thresholds." + field, Value: strconv.FormatInt(v, 10), Reason: "must not be negative"})
		}
	}
	percent("memoryPercent", t.MemoryPercent)
	percent("diskPercent", t.DiskPercent)
	percent("pidPercent", t.PIDPercent)
	percent("cpuPercent", t.CPUPercent)
	if v := t.LoadPerCPU; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		errs = append(errs, FieldError{
			Field: "thresholds.loadPerCPU", Value: strconv.FormatFloat(v, 'g', -1, 64),
			Reason: "must be a finite number, not negative",
		})
	}
	return errs
}

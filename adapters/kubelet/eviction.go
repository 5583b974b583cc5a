package kubelet

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"herd/domain"
)

// The eviction signals herd evaluates, by the kubelet's names.
const (
	SignalMemoryAvailable   = "memory.available"
	SignalNodeFSAvailable   = "nodefs.available"
	SignalNodeFSInodesFree  = "nodefs.inodesFree"
	SignalImageFSAvailable  = "imagefs.available"
	SignalImageFSInodesFree = "imagefs.inodesFree"
	SignalPIDAvailable      = "pid.available"
)

// signalConditions says which node condition each signal drives, as the
// kubelet's eviction manager does.
var signalConditions = map[string]domain.ConditionType{
	SignalMemoryAvailable:   domain.ConditionMemoryPressure,
	SignalNodeFSAvailable:   domain.ConditionDiskPressure,
	SignalNodeFSInodesFree:  domain.ConditionDiskPressure,
	SignalImageFSAvailable:  domain.ConditionDiskPressure,
	SignalImageFSInodesFree: domain.ConditionDiskPressure,
	SignalPIDAvailable:      domain.ConditionPIDPressure,
}

// Threshold is one hard eviction threshold: the signal is under pressure
// when what is available falls strictly below it.
type Threshold struct {
	// Signal is the kubelet's name for it, such as memory.available.
	Signal string
	// Value is the threshold as configured: "100Mi", "10%".
	Value string
	// Quantity is an absolute threshold (bytes, inodes or PIDs); used
	// when Percent is 0.
	Quantity int64
	// Percent is a threshold as a share of the capacity, above 0.
	Percent float64
}

// DefaultThresholds are the kubelet's default evictionHard on Linux,
// which apply when /configz is not served or names none.
func DefaultThresholds() []Threshold {
	t, _ := ParseEvictionHard(map[string]string{
		SignalMemoryAvailable:  "100Mi",
		SignalNodeFSAvailable:  "10%",
		SignalNodeFSInodesFree: "5%",
		SignalImageFSAvailable: "15%",
	})
	return t
}

// ParseEvictionHard reads a kubelet's evictionHard map. Signals herd does
// not evaluate (allocatableMemory.available, containerfs.*) are skipped;
// a value that is neither a quantity nor a percentage is reported and
// skipped. Thresholds come back in signal order.
func ParseEvictionHard(m map[string]string) ([]Threshold, []error) {
	var (
		out  []Threshold
		errs []error
	)
	for _, signal := range slices.Sorted(maps.Keys(m)) {
		if _, ok := signalConditions[signal]; !ok {
			continue
		}
		v := strings.TrimSpace(m[signal])
		t := Threshold{Signal: signal, Value: v}
		if pct, ok := strings.CutSuffix(v, "%"); ok {
			p, err := strconv.ParseFloat(pct, 64)
			if err != nil || p < 0 || p > 100 {
				errs = append(errs, fmt.Errorf("evictionHard %s=%q: want a percentage from 0%% to 100%%", signal, v))
				continue
			}
			if p == 0 {
				continue // 0% can never be crossed: the kubelet's way of switching a signal off
			}
			t.Percent = p
		} else {
			q, err := resource.ParseQuantity(v)
			if err != nil || q.Sign() < 0 {
				errs = append(errs, fmt.Errorf("evictionHard %s=%q: want a quantity such as 100Mi or a percentage such as 10%%", signal, v))
				continue
			}
			t.Quantity = q.Value()
		}
		out = append(out, t)
	}
	return out, errs
}

// signal is one eviction signal's reading: what is available and the
// capacity it is a share of, either unknown when the summary left it out.
type signal struct {
	available, capacity *float64
}

// signals reads every eviction signal from a summary's figures.
func signals(m domain.KubeletMetrics) map[string]signal {
	f := func(p *uint64) *float64 {
		if p == nil {
			return nil
		}
		v := float64(*p)
		return &v
	}
	out := map[string]signal{
		SignalNodeFSAvailable:   {f(m.NodeFSAvailableBytes), f(m.NodeFSCapacityBytes)},
		SignalNodeFSInodesFree:  {f(m.NodeFSInodesFree), f(m.NodeFSInodes)},
		SignalImageFSAvailable:  {f(m.ImageFSAvailableBytes), f(m.ImageFSCapacityBytes)},
		SignalImageFSInodesFree: {f(m.ImageFSInodesFree), f(m.ImageFSInodes)},
	}
	mem := signal{available: f(m.MemoryAvailableBytes)}
	if m.MemoryAvailableBytes != nil && m.MemoryWorkingSetBytes != nil {
		// The kubelet computes memory.available as capacity minus the
		// working set, so their sum is the capacity it measured against.
		c := float64(*m.MemoryAvailableBytes) + float64(*m.MemoryWorkingSetBytes)
		mem.capacity = &c
	}
	out[SignalMemoryAvailable] = mem
	if m.RlimitMaxPID != nil && m.RlimitCurProc != nil {
		a, c := float64(*m.RlimitMaxPID-*m.RlimitCurProc), float64(*m.RlimitMaxPID)
		out[SignalPIDAvailable] = signal{&a, &c}
	} else {
		out[SignalPIDAvailable] = signal{}
	}
	return out
}

// crossed says whether the reading is below the threshold, and whether
// the reading allowed an answer at all.
func (t Threshold) crossed(s signal) (below, known bool) {
	if s.available == nil {
		return false, false
	}
	if t.Percent == 0 {
		return *s.available < float64(t.Quantity), true
	}
	if s.capacity == nil {
		return false, false
	}
	return *s.available < *s.capacity*t.Percent/100, true
}

// Reasons and messages of the pressure conditions, the kubelet's own.
const (
	reasonKubeletReady          = "KubeletReady"
	reasonHasSufficientMemory   = "KubeletHasSufficientMemory"
	reasonHasInsufficientMemory = "KubeletHasInsufficientMemory"
	reasonHasNoDiskPressure     = "KubeletHasNoDiskPressure"
	reasonHasDiskPressure       = "KubeletHasDiskPressure"
	reasonHasSufficientPID      = "KubeletHasSufficientPID"
	reasonHasInsufficientPID    = "KubeletHasInsufficientPID"
	messageKubeletReady         = "kubelet answers /healthz"
	messageHasSufficientMemory  = "kubelet has sufficient memory available"
	messageHasNoDiskPressure    = "kubelet has no disk pressure"
	messageHasSufficientPID     = "kubelet has sufficient PID available"
	messageBelowThresholdFmt    = "%s is below the eviction threshold %s"
)

// pressureConditions turns a summary's figures into MemoryPressure,
// DiskPressure and PIDPressure by the kubelet's eviction thresholds, the
// way its eviction manager does. A condition is True when any of its
// signals is below its threshold; False when every one of its thresholds
// could be checked (or it has none); and left out when a figure it needs
// is missing and none is crossed, so that a summary that omits a field
// never makes a condition up. Messages name the signals and thresholds,
// not the readings, which change with every heartbeat while the status
// stands; the readings are in the heartbeat's figures.
func pressureConditions(m domain.KubeletMetrics, thresholds []Threshold) []domain.ReportedCondition {
	sig := signals(m)
	type verdict struct {
		crossed []string
		unknown bool
	}
	verdicts := map[domain.ConditionType]*verdict{
		domain.ConditionMemoryPressure: {}, domain.ConditionDiskPressure: {}, domain.ConditionPIDPressure: {},
	}
	for _, t := range thresholds {
		v := verdicts[signalConditions[t.Signal]]
		switch below, known := t.crossed(sig[t.Signal]); {
		case below:
			v.crossed = append(v.crossed, fmt.Sprintf(messageBelowThresholdFmt, t.Signal, t.Value))
		case !known:
			v.unknown = true
		}
	}
	var out []domain.ReportedCondition
	for _, c := range []struct {
		typ                 domain.ConditionType
		okReason, okMessage string
		pressureReason      string
	}{
		{domain.ConditionMemoryPressure, reasonHasSufficientMemory, messageHasSufficientMemory, reasonHasInsufficientMemory},
		{domain.ConditionDiskPressure, reasonHasNoDiskPressure, messageHasNoDiskPressure, reasonHasDiskPressure},
		{domain.ConditionPIDPressure, reasonHasSufficientPID, messageHasSufficientPID, reasonHasInsufficientPID},
	} {
		v := verdicts[c.typ]
		switch {
		case len(v.crossed) > 0:
			out = append(out, domain.ReportedCondition{Type: c.typ, Status: domain.ConditionTrue,
				Reason: c.pressureReason, Message: strings.Join(v.crossed, "; ")})
		case !v.unknown:
			out = append(out, domain.ReportedCondition{Type: c.typ, Status: domain.ConditionFalse,
				Reason: c.okReason, Message: c.okMessage})
		}
	}
	return out
}

// readyCondition is what a kubelet that answers /healthz reports.
func readyCondition() domain.ReportedCondition {
	return domain.ReportedCondition{Type: domain.ConditionReady, Status: domain.ConditionTrue,
		Reason: reasonKubeletReady, Message: messageKubeletReady}
}

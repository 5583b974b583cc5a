package kubelet

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"herd/domain"
)

// The kubelet's own /metrics series herd reads, of a few hundred
// families. The relist histogram is read by its sum and count only, which
// then parse as untyped samples.
var kubeletFamilies = [][]byte{
	[]byte("kubernetes_build_info"),
	[]byte("kubelet_runtime_operations_errors_total"),
	[]byte("kubelet_pleg_relist_duration_seconds_sum"),
	[]byte("kubelet_pleg_relist_duration_seconds_count"),
}

// kubeletSample is what herd takes from one /metrics answer.
type kubeletSample struct {
	// Version is kubernetes_build_info's git_version, such as v1.33.1;
	// empty when not served.
	Version string
	// RuntimeErrors counts the container runtime's failed operations by
	// operation type since the kubelet started.
	RuntimeErrors map[string]float64
	// RelistSeconds and Relists are the pod lifecycle event generator's
	// relist histogram's sum and count; RelistKnown is false when not
	// served.
	RelistSeconds, Relists float64
	RelistKnown            bool
}

// decodeKubeletMetrics reads /metrics.
func decodeKubeletMetrics(body []byte) (kubeletSample, error) {
	kept, err := keepFamilies(endpointMetrics, body, kubeletFamilies, "", len(kubeletFamilies))
	if err != nil {
		return kubeletSample{}, err
	}
	fams, err := parseText(endpointMetrics, kept)
	if err != nil {
		return kubeletSample{}, err
	}
	s := kubeletSample{RuntimeErrors: map[string]float64{}}
	for _, m := range fams["kubernetes_build_info"].GetMetric() {
		s.Version = labels(m)["git_version"]
	}
	for _, m := range fams["kubelet_runtime_operations_errors_total"].GetMetric() {
		s.RuntimeErrors[labels(m)["operation_type"]] += value(m)
	}
	sum, count := fams["kubelet_pleg_relist_duration_seconds_sum"].GetMetric(), fams["kubelet_pleg_relist_duration_seconds_count"].GetMetric()
	if len(sum) > 0 && len(count) > 0 {
		s.RelistSeconds, s.Relists, s.RelistKnown = value(sum[0]), value(count[0]), true
	}
	return s, nil
}

// Messages of ContainerRuntimeUnhealthy.
const (
	messageRuntimeHealthy      = "the container runtime reports no failed operations and the kubelet relists its pods in time"
	messageRuntimeErrorsFmt    = "the container runtime failed %s operations since herd's last poll"
	messageRelistSlowFmt       = "the kubelet took longer than %s on average to relist the container runtime's pods"
	messageRelistSlowErrorsFmt = messageRelistSlowFmt + "; " + messageRuntimeErrorsFmt
)

// runtimeHealth follows the kubelet's runtime figures from one /metrics
// read to the next.
type runtimeHealth struct {
	last *kubeletSample
	// failing are the operation types whose errors rose between the last
	// two reads; relist is the mean relist time between them, and
	// relistKnown false when the kubelet did not relist or serve it.
	failing     []string
	relist      time.Duration
	relistKnown bool
	known       bool
}

// observe takes a read. Counters that went back (a kubelet restart) are
// compared from this read on.
func (r *runtimeHealth) observe(s kubeletSample) {
	if r.last != nil {
		r.failing = nil
		for op, n := range s.RuntimeErrors {
			if n > r.last.RuntimeErrors[op] {
				r.failing = append(r.failing, op)
			}
		}
		slices.Sort(r.failing)
		relists := s.Relists - r.last.Relists
		r.relistKnown = s.RelistKnown && r.last.RelistKnown && relists > 0 && s.RelistSeconds >= r.last.RelistSeconds
		if r.relistKnown {
			r.relist = time.Duration((s.RelistSeconds - r.last.RelistSeconds) / relists * float64(time.Second))
		}
		r.known = true
	}
	s.RuntimeErrors = maps.Clone(s.RuntimeErrors)
	r.last = &s
}

// condition is ContainerRuntimeUnhealthy, false until two reads were
// taken. A slow relist is named first: it is what turns a node NotReady
// ("PLEG is not healthy").
func (r *runtimeHealth) condition(sig Signals) (domain.ReportedCondition, bool) {
	if !r.known {
		return domain.ReportedCondition{}, false
	}
	c := domain.ReportedCondition{Type: domain.ConditionContainerRuntimeUnhealthy, Status: domain.ConditionTrue}
	ops := strings.Join(r.failing, ", ")
	switch slow := r.relistKnown && r.relist > sig.RelistSlow; {
	case slow && len(r.failing) > 0:
		c.Reason, c.Message = domain.ReasonPodLifecycleSlow, fmt.Sprintf(messageRelistSlowErrorsFmt, sig.RelistSlow, ops)
	case slow:
		c.Reason, c.Message = domain.ReasonPodLifecycleSlow, fmt.Sprintf(messageRelistSlowFmt, sig.RelistSlow)
	case len(r.failing) > 0:
		c.Reason, c.Message = domain.ReasonContainerRuntimeErrors, fmt.Sprintf(messageRuntimeErrorsFmt, ops)
	default:
		c.Status, c.Reason, c.Message = domain.ConditionFalse, domain.ReasonContainerRuntimeHealthy, messageRuntimeHealthy
	}
	return c, true
}

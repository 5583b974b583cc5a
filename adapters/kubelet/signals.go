package kubelet

import (
	"herd/domain"
)

// decodeCadvisor takes a /metrics/cadvisor body into the poller, at the
// time of herd's clock.
func (p *poller) decodeCadvisor(body []byte) error {
	s, err := decodeCadvisor(body)
	if err != nil {
		return err
	}
	now := p.clock.Now()
	p.throttle.observe(s, now, p.signals)
	p.network.observe(s, now)
	return nil
}

// decodeKubeletMetrics takes a /metrics body into the poller. A version
// the kubelet stops serving is kept: it is still the kubelet's.
func (p *poller) decodeKubeletMetrics(body []byte) error {
	s, err := decodeKubeletMetrics(body)
	if err != nil {
		return err
	}
	if s.Version != "" {
		p.version = s.Version
	}
	p.runtime.observe(s)
	return nil
}

// slowConditions are the conditions of the slow poll's figures that herd
// knows: CPUThrottling, NetworkUnavailable, ContainerRuntimeUnhealthy. One
// it cannot tell yet (one read so far, or the endpoint not served) is left
// out, and the node keeps what it had.
func (p *poller) slowConditions() []domain.ReportedCondition {
	var out []domain.ReportedCondition
	for _, c := range []func(Signals) (domain.ReportedCondition, bool){p.throttle.condition, p.network.condition, p.runtime.condition} {
		if cond, ok := c(p.signals); ok {
			out = append(out, cond)
		}
	}
	return out
}

// withThrottling gives each pod with a throttled container the
// CPUThrottled condition.
func (p *poller) withThrottling(pods []domain.ObservePod) {
	for i := range pods {
		o := &pods[i]
		if c, ok := p.throttle.podCondition(o.Namespace, o.Name, p.signals); ok {
			o.Status.Conditions = append(o.Status.Conditions, c)
		}
	}
}

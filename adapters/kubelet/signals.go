package kubelet

import (
	"herd/domain"
)

// decodeCadvisor takes a /metrics/cadvisor body into the poller, at the
// time of herd's clock.
func (p *poller) decodeCadvisor(body []byte) error {
	delete(p.notServed, endpointCadvisor)
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
	delete(p.notServed, endpointMetrics)
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
// it cannot tell yet (one read so far, or an endpoint never served) is
// left out, and the node keeps what it had; one whose endpoint stopped
// being served after herd judged it is Unknown (MetricsNotServed), not
// left as it last was.
func (p *poller) slowConditions() []domain.ReportedCondition {
	var out []domain.ReportedCondition
	for _, c := range []struct {
		typ      domain.ConditionType
		endpoint string
		judge    func(Signals) (domain.ReportedCondition, bool)
	}{
		{domain.ConditionCPUThrottling, endpointCadvisor, p.throttle.condition},
		{domain.ConditionNetworkUnavailable, endpointCadvisor, p.network.condition},
		{domain.ConditionContainerRuntimeUnhealthy, endpointMetrics, p.runtime.condition},
	} {
		if cond, ok := c.judge(p.signals); ok {
			out = append(out, cond)
		} else if p.notServed[c.endpoint] {
			out = append(out, domain.ReportedCondition{Type: c.typ, Status: domain.ConditionUnknown, Reason: domain.ReasonMetricsNotServed,
				Message: "the kubelet no longer serves " + c.endpoint + ", which herd judged this condition from"})
		}
	}
	return out
}

// stopServing notes that endpoint answered 404; when herd had judged
// conditions from it (judged), they turn Unknown until it is served again.
func (p *poller) stopServing(endpoint string, judged bool) {
	if !judged {
		return
	}
	if p.notServed == nil {
		p.notServed = map[string]bool{}
	}
	p.notServed[endpoint] = true
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

package kubelet

import (
	"bytes"
	"fmt"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parseText reads Prometheus text exposition, as the kubelet's /metrics/*
// endpoints serve it.
func parseText(endpoint string, body []byte) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", endpoint, err)
	}
	return fams, nil
}

// labels returns a metric's labels as a map.
func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// value is a counter's, gauge's or untyped sample's value.
func value(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// containerRef names one container on the node.
type containerRef struct {
	Namespace, Pod, Container string
}

// probeCount is the failures of one probe of one container.
type probeCount struct {
	// PodUID is the pod's UID where the kubelet labels it (pod_uid), so
	// that a pod recreated under the same name does not inherit counts.
	PodUID string
	// Probe is Liveness, Readiness or Startup.
	Probe string
	// Failed is how often it failed since the kubelet started.
	Failed int64
}

// probeFailures holds the failed probes of /metrics/probes'
// prober_probe_total{result="failed"}, by container.
type probeFailures map[containerRef][]probeCount

// decodeProbes reads /metrics/probes.
func decodeProbes(body []byte) (probeFailures, error) {
	fams, err := parseText("/metrics/probes", body)
	if err != nil {
		return nil, err
	}
	out := probeFailures{}
	for _, m := range fams["prober_probe_total"].GetMetric() {
		l := labels(m)
		if l["result"] != "failed" {
			continue
		}
		ref := containerRef{Namespace: l["namespace"], Pod: l["pod"], Container: l["container"]}
		out[ref] = append(out[ref], probeCount{PodUID: l["pod_uid"], Probe: l["probe_type"], Failed: int64(value(m))})
	}
	return out, nil
}

// usage is what /metrics/resource says about the node.
type usage struct {
	// NodeCPUSeconds and NodeMemoryWorkingSet are the node's figures, nil
	// when not served.
	NodeCPUSeconds       *float64
	NodeMemoryWorkingSet *float64
	// ScrapeError is the kubelet saying it failed to collect them
	// (resource_scrape_error 1).
	ScrapeError bool
}

// decodeResource reads /metrics/resource.
func decodeResource(body []byte) (usage, error) {
	fams, err := parseText("/metrics/resource", body)
	if err != nil {
		return usage{}, err
	}
	var u usage
	if ms := fams["node_cpu_usage_seconds_total"].GetMetric(); len(ms) > 0 {
		v := value(ms[0])
		u.NodeCPUSeconds = &v
	}
	if ms := fams["node_memory_working_set_bytes"].GetMetric(); len(ms) > 0 {
		v := value(ms[0])
		u.NodeMemoryWorkingSet = &v
	}
	for _, m := range fams["resource_scrape_error"].GetMetric() {
		u.ScrapeError = u.ScrapeError || value(m) != 0
	}
	return u, nil
}

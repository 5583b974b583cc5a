package kubelet

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"

	"herd/domain"
)

// settings are what herd takes from a kubelet's /configz.
type settings struct {
	// Thresholds are the hard eviction thresholds the kubelet runs with.
	Thresholds []Threshold
	// FromConfigz says the thresholds are the kubelet's own, not the
	// defaults.
	FromConfigz bool
	// MaxPods is the kubelet's pod limit, 0 when unknown.
	MaxPods int64
	// Reserved is what kubeReserved and systemReserved hold back from
	// pods, summed, in herd's base units.
	Reserved domain.ResourceList
	// Problems are values herd could not read, to be logged.
	Problems []error
}

// defaultSettings are what herd assumes of a kubelet that does not serve
// /configz (its read-only port, or debugging handlers switched off).
func defaultSettings() settings { return settings{Thresholds: DefaultThresholds()} }

// configz is the part of /configz herd reads. The kubelet wraps its
// KubeletConfiguration in {"kubeletconfig": ...}.
type configz struct {
	KubeletConfig *struct {
		EvictionHard   map[string]string `json:"evictionHard"`
		MaxPods        *int64            `json:"maxPods"`
		KubeReserved   map[string]string `json:"kubeReserved"`
		SystemReserved map[string]string `json:"systemReserved"`
	} `json:"kubeletconfig"`
}

// decodeConfigz reads a /configz body. A body without the kubeletconfig
// object is an error; within it, every field may be missing. An
// evictionHard that is absent or empty means the kubelet's defaults.
func decodeConfigz(body []byte) (settings, error) {
	var c configz
	if err := json.Unmarshal(body, &c); err != nil {
		return settings{}, fmt.Errorf("decode /configz: %w", err)
	}
	if c.KubeletConfig == nil {
		return settings{}, fmt.Errorf("decode /configz: no kubeletconfig object")
	}
	kc := c.KubeletConfig
	s := defaultSettings()
	if len(kc.EvictionHard) > 0 {
		s.Thresholds, s.Problems = ParseEvictionHard(kc.EvictionHard)
		s.FromConfigz = true
	}
	if kc.MaxPods != nil && *kc.MaxPods > 0 {
		s.MaxPods = *kc.MaxPods
	}
	for _, part := range []struct {
		name string
		m    map[string]string
	}{{"kubeReserved", kc.KubeReserved}, {"systemReserved", kc.SystemReserved}} {
		for _, res := range slices.Sorted(maps.Keys(part.m)) {
			q, err := resource.ParseQuantity(part.m[res])
			if err != nil || q.Sign() < 0 {
				s.Problems = append(s.Problems, fmt.Errorf("%s %s=%q: not a quantity", part.name, res, part.m[res]))
				continue
			}
			if s.Reserved == nil {
				s.Reserved = domain.ResourceList{}
			}
			v := q.Value()
			if res == "cpu" {
				v = q.MilliValue()
			}
			s.Reserved[res] += v
		}
	}
	return s, nil
}

// allocatable is what the kubelet leaves pods out of capacity, the way it
// computes node allocatable: capacity minus what is reserved and minus the
// hard eviction threshold of memory and of the root filesystem. Resources
// whose capacity is unknown are left out.
func (s settings) allocatable(capacity domain.ResourceList) domain.ResourceList {
	out := domain.ResourceList{}
	for name, c := range capacity {
		v := c - s.Reserved[name]
		for _, t := range s.Thresholds {
			switch {
			case name == "memory" && t.Signal == SignalMemoryAvailable,
				name == "ephemeral-storage" && t.Signal == SignalNodeFSAvailable:
				if t.Percent > 0 {
					v -= int64(float64(c) * t.Percent / 100)
				} else {
					v -= t.Quantity
				}
			}
		}
		out[name] = max(v, 0)
	}
	return out
}

package domain

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of the node: no map, slice or pointer is shared
// with n, so the copy can be changed without touching the original.
//
// Empty maps and slices come back as nil. Events travel through JSON with
// omitempty, where empty and nil are the same thing; normalising here keeps
// a node folded from in-memory events identical to one folded from the log.
func (n Node) Clone() Node {
	c := n
	c.Labels = cloneStrings(n.Labels)
	c.Annotations = cloneStrings(n.Annotations)
	c.Addresses = cloneSlice(n.Addresses)
	c.Capacity = cloneResources(n.Capacity)
	c.Allocatable = cloneResources(n.Allocatable)
	c.Conditions = cloneSlice(n.Conditions)
	c.Metrics = n.Metrics.clone()
	c.Taints = cloneSlice(n.Taints)
	if n.Drain != nil {
		d := *n.Drain
		d.GracePeriodSeconds = cloneInt64(n.Drain.GracePeriodSeconds)
		c.Drain = &d
	}
	c.KubeletMetrics = n.KubeletMetrics.clone()
	c.ScrapeFailure = clonePtr(n.ScrapeFailure)
	c.FailedServices = cloneStrings(n.FailedServices)
	c.PressureEasedAt = cloneEasing(n.PressureEasedAt)
	return c
}

// clone returns a deep copy of the registration, empty maps and slices as
// nil (see Node.Clone).
func (r Registration) clone() Registration {
	c := r
	c.Labels = cloneStrings(r.Labels)
	c.Annotations = cloneStrings(r.Annotations)
	c.Addresses = cloneSlice(r.Addresses)
	c.Capacity = cloneResources(r.Capacity)
	c.Allocatable = cloneResources(r.Allocatable)
	return c
}

// clone returns a copy of the metrics, or nil for nil.
func (m *Metrics) clone() *Metrics {
	if m == nil {
		return nil
	}
	c := *m
	c.CPUPercent = clonePtr(m.CPUPercent)
	c.Links = cloneSlice(m.Links)
	c.Services = cloneSlice(m.Services)
	return &c
}

// cloneStrings copies a string map; empty or nil gives nil.
func cloneStrings(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// cloneResources copies a resource list; empty or nil gives nil.
func cloneResources(r ResourceList) ResourceList {
	if len(r) == 0 {
		return nil
	}
	return maps.Clone(r)
}

// cloneSlice copies a slice of plain values; empty or nil gives nil.
func cloneSlice[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// cloneInt64 copies an optional integer.
func cloneInt64(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

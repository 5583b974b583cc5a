package herdclient

import (
	"context"
	"net/url"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// nodePath is herd's agent endpoint for the node name, under /apis/herd.dev/v1.
func nodePath(name, sub string) string {
	return "/apis/herd.dev/v1/nodes/" + url.PathEscape(name) + "/" + sub
}

// Register registers the node (PUT .../nodes/NAME/registration): the
// first time, or again after a restart, which herd counts as a clean
// start when the node had deregistered.
func (c *Client) Register(ctx context.Context, reg domain.Registration) (domain.Node, error) {
	var out corev1.Node
	if err := c.do(ctx, "PUT", nodePath(reg.Name, "registration"), nil, conversions.RegistrationToAPI(reg), &out); err != nil {
		return domain.Node{}, err
	}
	return conversions.NodeFromAPI(out), nil
}

// Heartbeat reports the node's metrics (POST .../nodes/NAME/heartbeat);
// herd derives the node's conditions from them.
func (c *Client) Heartbeat(ctx context.Context, name string, m domain.Metrics) (domain.Node, error) {
	body := conversions.AgentHeartbeat{Metrics: &conversions.AgentMetrics{
		CPUCount: &m.CPUCount, Load1: &m.Load1, Load5: &m.Load5, Load15: &m.Load15,
		MemoryTotalBytes: &m.MemoryTotalBytes, MemoryAvailableBytes: &m.MemoryAvailableBytes,
		DiskTotalBytes: &m.DiskTotalBytes, DiskAvailableBytes: &m.DiskAvailableBytes,
		PIDsMax: &m.PIDsMax, PIDsCurrent: &m.PIDsCurrent, ActiveJobs: &m.ActiveJobs,
		CPUPercent: m.CPUPercent, Links: m.Links, Services: m.Services,
	}}
	var out corev1.Node
	if err := c.do(ctx, "POST", nodePath(name, "heartbeat"), nil, body, &out); err != nil {
		return domain.Node{}, err
	}
	return conversions.NodeFromAPI(out), nil
}

// Deregister says goodbye before a clean stop (DELETE
// .../nodes/NAME/registration), so that the next start is a clean start.
func (c *Client) Deregister(ctx context.Context, name string) error {
	return c.do(ctx, "DELETE", nodePath(name, "registration"), nil, nil, nil)
}

// Node reads the node (GET /api/v1/nodes/NAME).
func (c *Client) Node(ctx context.Context, name string) (domain.Node, error) {
	var out corev1.Node
	if err := c.do(ctx, "GET", "/api/v1/nodes/"+url.PathEscape(name), nil, nil, &out); err != nil {
		return domain.Node{}, err
	}
	return conversions.NodeFromAPI(out), nil
}

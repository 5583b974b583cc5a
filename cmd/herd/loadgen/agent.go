package loadgen

import (
	"context"
	"errors"
	"net/http"
	"time"

	"herd/adapters/herdclient"
	"herd/domain"
)

// agentClient speaks as herd agent, through the agent's own client:
// registration, then heartbeats with the host's metrics.
type agentClient struct {
	cfg Config
	// clients are one for each server, in the order of cfg.Servers.
	clients []*herdclient.Client
	names   []string
}

func newAgentClient(cfg Config, names []string, t http.RoundTripper) (*agentClient, error) {
	a := &agentClient{cfg: cfg, clients: make([]*herdclient.Client, len(cfg.Servers)), names: names}
	for s, server := range cfg.Servers {
		c, err := herdclient.New(herdclient.Config{Server: server, Token: cfg.Token, Transport: t, Timeout: cfg.Timeout, UserAgent: "herd-agent/loadgen"})
		if err != nil {
			return nil, err
		}
		a.clients[s] = c
	}
	return a, nil
}

// client is node i's agent's client, of its server.
func (a *agentClient) client(i int) *herdclient.Client { return a.clients[a.cfg.server(i)] }

// agentMetrics are a healthy four-CPU host's: no pressure, no high load.
var agentMetrics = domain.Metrics{CPUCount: 4, Load1: 0.5, Load5: 0.4, Load15: 0.3,
	MemoryTotalBytes: 16 << 30, MemoryAvailableBytes: 12 << 30, DiskTotalBytes: 100 << 30, DiskAvailableBytes: 60 << 30,
	PIDsMax: 4194304, PIDsCurrent: 300}

func (a *agentClient) register(ctx context.Context, i int) outcome {
	name := a.names[i]
	_, err := a.client(i).Register(ctx, domain.Registration{Name: name, Kind: domain.KindLinux,
		Labels:      map[string]string{domain.LabelRuntime: domain.RuntimeAgent, "kubernetes.io/os": "linux"},
		Addresses:   []domain.Address{{Type: "Hostname", Address: name}},
		Capacity:    domain.ResourceList{"cpu": 4000, "memory": 16 << 30, "pods": 110},
		Allocatable: domain.ResourceList{"cpu": 3500, "memory": 15 << 30, "pods": 110},
		Info:        domain.NodeInfo{AgentVersion: "herd-agent/loadgen", OperatingSystem: "linux", Architecture: "amd64", BootID: "loadgen-boot"}})
	return agentOutcome(err)
}

func (a *agentClient) heartbeat(ctx context.Context, i int) outcome {
	_, err := a.client(i).Heartbeat(ctx, a.names[i], agentMetrics)
	return agentOutcome(err)
}

// agentOutcome reads herdclient's answer: a *StatusError carries the
// refusal's status and Retry-After (1 s when herd gave none, as for the
// kubelet style); any 2xx is reported as 200, which herd's agent
// endpoints answer.
func agentOutcome(err error) outcome {
	var se *herdclient.StatusError
	switch {
	case err == nil:
		return outcome{status: http.StatusOK}
	case errors.As(err, &se):
		wait := se.RetryAfter
		if wait == 0 {
			wait = time.Second
		}
		return outcome{status: se.Code, retryAfter: wait, err: err}
	}
	return outcome{err: err}
}

package jsoncodecs

import (
	"fmt"
	"time"

	"herd/domain"
)

// Payload is one of herd's stored JSON payloads: a value to encode, and a
// function making a fresh value of its type to decode into.
type Payload struct {
	Name  string
	Value any
	New   func() any
}

// at is the payloads' clock: a real one's nanoseconds, which time.Time's
// JSON keeps.
var at = time.Date(2026, 3, 1, 9, 0, 0, 123456789, time.UTC)

// Payloads are the four payloads the wide log's replay decodes and
// encodes most: a HeartbeatRecorded with an agent's metrics and a
// NodeRegistered (events, decoded), and a node's and a pod's view row
// (encoded). They are made by the domain's own decisions, as herd makes
// them, with a label and a message that exercise escaping (HTML
// characters, U+2028, non-ASCII).
func Payloads() []Payload {
	reg := domain.Registration{
		Name: "node-000042", UID: "6f1c2d9e-8a57-4c3b-9d11-0e2f5a7b8c90", Kind: domain.KindLinux,
		Labels: map[string]string{
			"kubernetes.io/hostname": "node-000042", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			"topology.kubernetes.io/zone": "eu-west-1a", domain.LabelRuntime: domain.RuntimeAgent, "team": "ops-data",
		},
		Annotations: map[string]string{"herd.io/note": "<ops> & data, rack 12 \u2028 aisle ü"},
		Addresses:   []domain.Address{{Type: "Hostname", Address: "node-000042"}, {Type: "InternalIP", Address: "10.4.0.42"}},
		Capacity:    domain.ResourceList{"cpu": 16000, "memory": 64 << 30, "pods": 110, "ephemeral-storage": 200 << 30},
		Allocatable: domain.ResourceList{"cpu": 15500, "memory": 62 << 30, "pods": 110, "ephemeral-storage": 180 << 30},
		Info: domain.NodeInfo{AgentVersion: "herd-agent/v0.9.0", KernelVersion: "6.1.0-18-amd64", OSImage: "Debian GNU/Linux 12 (bookworm)",
			OperatingSystem: "linux", Architecture: "amd64", MachineID: "0f3e5a7c9b1d4e2f8a6c0b9d7e5f3a1c", BootID: "c1a2b3d4-e5f6-4789-8abc-def012345678"},
	}
	cpu := 37.5
	metrics := &domain.Metrics{CPUCount: 16, Load1: 3.21, Load5: 2.87, Load15: 2.5,
		MemoryTotalBytes: 64 << 30, MemoryAvailableBytes: 41234567890, DiskTotalBytes: 200 << 30, DiskAvailableBytes: 123456789012,
		PIDsMax: 4194304, PIDsCurrent: 1234, ActiveJobs: 7, CPUPercent: &cpu,
		Links:    []domain.NetworkLink{{Name: "eth0", State: "up", Up: true}, {Name: "eth1", State: "down"}},
		Services: []domain.ServiceState{{Name: "containerd.service", Status: domain.ServiceRunning, State: "active/running"}},
	}

	var n domain.Node
	var registered, heartbeat domain.Event
	for i, cmd := range []domain.NodeCommand{domain.RegisterNode{Registration: reg}, domain.RecordHeartbeat{Metrics: metrics}} {
		evs, err := domain.DecideNode(n, cmd, at.Add(time.Duration(i)*10*time.Second))
		if err != nil {
			panic(fmt.Sprintf("jsoncodecs: %T: %v", cmd, err))
		}
		for _, ev := range evs {
			n = domain.EvolveNode(n, ev)
			switch ev.(type) {
			case domain.NodeRegistered:
				registered = ev
			case domain.HeartbeatRecorded:
				heartbeat = ev
			}
		}
	}
	n.ResourceVersion = 123456
	if registered == nil || heartbeat == nil {
		panic("jsoncodecs: the domain decided no NodeRegistered or HeartbeatRecorded")
	}
	return []Payload{
		{"HeartbeatRecorded", heartbeat, func() any { return new(domain.HeartbeatRecorded) }},
		{"NodeRegistered", registered, func() any { return new(domain.NodeRegistered) }},
		{"NodeRow", n, func() any { return new(domain.Node) }},
		{"PodRow", pod(), func() any { return new(domain.Pod) }},
	}
}

// pod is a running pod of a Deployment, as its row stores it.
func pod() domain.Pod {
	return domain.Pod{
		Namespace: "default", Name: "web-7d4b9c6f5-x2k8p", UID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
		Labels:    map[string]string{"app": "web", "pod-template-hash": "7d4b9c6f5"},
		Owners:    []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d4b9c6f5", UID: "9f8e7d6c", Controller: true}},
		CreatedAt: at, Source: domain.SourceHerd,
		Spec: domain.PodSpec{NodeName: "node-000042", TerminationGracePeriodSeconds: 30,
			Tolerations: []domain.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute"}},
			Containers: []domain.Container{{Name: "web", Image: "nginx:1.27", Args: []string{"-g", "daemon off;"},
				Requests: domain.ResourceList{"cpu": 250, "memory": 256 << 20}, Limits: domain.ResourceList{"memory": 512 << 20}}}},
		Status: domain.PodStatus{Phase: domain.PodRunning, PodIP: "10.244.3.17", HostIP: "10.4.0.42", StartTime: at,
			Conditions: []domain.PodCondition{
				{Type: "PodScheduled", Status: domain.ConditionTrue, LastTransitionTime: at},
				{Type: "Ready", Status: domain.ConditionTrue, LastTransitionTime: at.Add(3 * time.Second)},
			},
			ContainerStatuses: []domain.ContainerStatus{{Name: "web", Image: "nginx:1.27", Ready: true,
				State: domain.ContainerState{Running: &domain.ContainerRunning{StartedAt: at.Add(2 * time.Second)}}}}},
		Version: 4, ResourceVersion: 123460,
	}
}

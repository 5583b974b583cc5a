package domain

import "time"

// NodeKind says how herd reaches a machine. It is a label on one model, not
// a different model: every kind is a Node.
type NodeKind string

// The kinds of machine herd knows.
const (
	// KindKubelet is a Kubernetes node observed by polling its kubelet.
	KindKubelet NodeKind = "kubelet"
	// KindIllumos is an illumos host whose herd agent runs pods as zones.
	KindIllumos NodeKind = "illumos"
	// KindRP2040 is a Raspberry Pi Pico that registers itself with
	// Kubernetes-style Node JSON.
	KindRP2040 NodeKind = "rp2040"
	// KindLinux is a generic host running herd's agent.
	KindLinux NodeKind = "linux"
)

// Kinds lists every valid NodeKind, for validation and help texts.
var Kinds = []NodeKind{KindKubelet, KindIllumos, KindRP2040, KindLinux}

// AgentState is the life stage of the software on a node as herd sees it.
type AgentState string

// The agent states, in the order a node normally passes through them.
const (
	// AgentStarting: registered, no heartbeat yet.
	AgentStarting AgentState = "Starting"
	// AgentReady: heartbeating.
	AgentReady AgentState = "Ready"
	// AgentDraining: cordoned and having its pods evicted.
	AgentDraining AgentState = "Draining"
	// AgentDrained: cordoned, and every pod it ran is gone.
	AgentDrained AgentState = "Drained"
	// AgentStopped: deregistered cleanly.
	AgentStopped AgentState = "Stopped"
	// AgentLost: its heartbeats stopped without a deregistration, and herd
	// marked its conditions Unknown (a killed agent, a dead machine, a cut
	// network). Its next heartbeat brings it back.
	AgentLost AgentState = "Lost"
)

// Restart reasons recorded when a known node registers again.
const (
	// RestartCleanStart: the node had deregistered before registering again.
	RestartCleanStart = "clean start"
	// RestartCrashRecovery: the node registered again without deregistering.
	RestartCrashRecovery = "crash recovery"
)

// Address is one way to reach a node, in Kubernetes' terms (Type is
// InternalIP, ExternalIP, Hostname, ...).
type Address struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// ResourceList holds quantities by resource name in base units: "cpu" in
// millicores, "memory" and "ephemeral-storage" in bytes, "pods" as a count.
// The API boundary converts to and from Kubernetes quantities.
type ResourceList map[string]int64

// NodeInfo describes the software and hardware of a node, as Kubernetes'
// NodeSystemInfo does; AgentVersion is the kubelet version for a kubelet
// node and herd's agent version for herd's own agents.
type NodeInfo struct {
	AgentVersion            string `json:"agentVersion,omitempty"`
	KernelVersion           string `json:"kernelVersion,omitempty"`
	OSImage                 string `json:"osImage,omitempty"`
	OperatingSystem         string `json:"operatingSystem,omitempty"`
	Architecture            string `json:"architecture,omitempty"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion,omitempty"`
	KubeProxyVersion        string `json:"kubeProxyVersion,omitempty"`
	MachineID               string `json:"machineID,omitempty"`
	SystemUUID              string `json:"systemUUID,omitempty"`
	BootID                  string `json:"bootID,omitempty"`
}

// Metrics is what herd's own agents report with each heartbeat. herd derives
// the pressure conditions from them.
type Metrics struct {
	CPUCount             int     `json:"cpuCount"`
	Load1                float64 `json:"load1"`
	Load5                float64 `json:"load5"`
	Load15               float64 `json:"load15"`
	MemoryTotalBytes     int64   `json:"memoryTotalBytes"`
	MemoryAvailableBytes int64   `json:"memoryAvailableBytes"`
	DiskTotalBytes       int64   `json:"diskTotalBytes"`
	DiskAvailableBytes   int64   `json:"diskAvailableBytes"`
	PIDsMax              int64   `json:"pidsMax"`
	PIDsCurrent          int64   `json:"pidsCurrent"`
	ActiveJobs           int     `json:"activeJobs"`
	// CPUPercent is the share of the node's CPUs that was busy since the
	// agent's previous heartbeat, 0 to 100. nil when the agent does not
	// measure it (its first heartbeat, an older agent, a host it cannot
	// read): herd then derives no CPUPressure.
	CPUPercent *float64 `json:"cpuPercent,omitempty"`
	// Links are the node's network links other than loopback and whether
	// each is up (see NetworkLink); nil when the agent does not report
	// them, and then herd derives no NetworkUnavailable.
	Links []NetworkLink `json:"links,omitempty"`
	// Services are the states of the services the agent watches (herd
	// agent --watch-service); nil when it watches none, and then herd
	// derives no ServicesHealthy.
	Services []ServiceState `json:"services,omitempty"`
}

// Node is the node aggregate: everything herd knows about one machine. The
// node view stores it as its row, so it is also the aggregate's snapshot.
type Node struct {
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Kind        NodeKind          `json:"kind,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Addresses   []Address         `json:"addresses,omitempty"`
	Capacity    ResourceList      `json:"capacity,omitempty"`
	Allocatable ResourceList      `json:"allocatable,omitempty"`
	Info        NodeInfo          `json:"info"`
	// MaxJobs caps how many pods herd places on the node; 0 means no cap
	// beyond the "pods" resource.
	MaxJobs int `json:"maxJobs,omitempty"`
	// KubeletPort is the port of the node's kubelet endpoint, 0 when none.
	KubeletPort int32 `json:"kubeletPort,omitempty"`

	// Unschedulable is Kubernetes' spec.unschedulable: a cordoned node
	// gets no new pods. Operators set it; registrations keep it.
	Unschedulable bool `json:"unschedulable,omitempty"`
	// Drain is set while the node is being drained or stays drained.
	Drain *NodeDrain `json:"drain,omitempty"`

	Conditions []Condition `json:"conditions,omitempty"`
	// Taints repel pods; herd manages those under its condition keys and
	// leaves the rest to operators.
	Taints []Taint `json:"taints,omitempty"`

	AgentState        AgentState `json:"agentState,omitempty"`
	RestartCount      int        `json:"restartCount,omitempty"`
	LastRestartReason string     `json:"lastRestartReason,omitempty"`
	// StartedAt is when herd first saw the node; restarts keep it.
	StartedAt time.Time `json:"startedAt"`
	// RegisteredAt is the time of the latest registration or restart.
	RegisteredAt time.Time `json:"registeredAt"`
	// LastHeartbeat is herd's clock at the latest heartbeat; zero if none.
	LastHeartbeat time.Time `json:"lastHeartbeat"`
	// Metrics are the latest metrics an agent reported, nil if none.
	Metrics *Metrics `json:"metrics,omitempty"`
	// KubeletMetrics are the latest figures a kubelet's summary gave,
	// nil for nodes that are not kubelets.
	KubeletMetrics *KubeletMetrics `json:"kubeletMetrics,omitempty"`
	// ScrapeFailure is why herd cannot hear from the node's kubelet right
	// now, nil while it can.
	ScrapeFailure *ScrapeFailure `json:"scrapeFailure,omitempty"`
	// FailedServices are the watched services herd last recorded as
	// failed (NodeServiceFailed), by name, with the state they failed in;
	// a NodeServiceRecovered takes one out. herd records each failure and
	// each recovery once, however many heartbeats report it.
	FailedServices map[string]string `json:"failedServices,omitempty"`
	// PressureEasedAt holds, for each pressure condition that is True
	// while its signal is back under the threshold, when herd first saw
	// it under (NodePressureEased): the condition clears once the signal
	// has stayed under for the transition period. Kept in the node so that
	// a replay of the log decides as the live herd did.
	PressureEasedAt map[ConditionType]time.Time `json:"pressureEasedAt,omitempty"`

	// Deleted marks a node removed from the fleet. The view keeps the row
	// as a tombstone so that the stream version survives a later
	// registration under the same name; lists and gets never show it.
	Deleted bool `json:"deleted,omitempty"`

	// Version is the number of events in the node's stream: the expected
	// version of the next append. 0 means herd has never seen the node.
	Version int64 `json:"version"`
	// ResourceVersion is the global log position of the last event that
	// touched the node. Set by the projection, not by Evolve.
	ResourceVersion int64 `json:"resourceVersion"`
}

// NodeDrain is an operator's request to empty a node.
type NodeDrain struct {
	// GracePeriodSeconds overrides each pod's own grace period; nil keeps
	// the pods' own.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// RequestedAt is when the drain began.
	RequestedAt time.Time `json:"requestedAt"`
	// DrainedAt is when the last pod left; zero while draining.
	DrainedAt time.Time `json:"drainedAt"`
}

// Exists reports whether the node is registered and not deleted.
func (n Node) Exists() bool { return n.Version > 0 && !n.Deleted }

// NodeStream is the name of the log stream that holds a node's events.
func NodeStream(name string) string { return NodeAggregate.Stream(name) }

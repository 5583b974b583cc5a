package domain

import "time"

// LabelRuntime is the node label that says who runs herd's pods on the
// node. A node whose own `herd agent` runs them carries
// LabelRuntime=RuntimeAgent; herd serve then leaves its pods to the agent.
const LabelRuntime = "herd.dev/runtime"

// RuntimeAgent is LabelRuntime's value on nodes whose agent runs the pods.
const RuntimeAgent = "agent"

// RunsOwnPods reports whether the node's agent runs herd's pods itself.
func (n Node) RunsOwnPods() bool { return n.Labels[LabelRuntime] == RuntimeAgent }

// RuntimePhase is where a pod stands on its node's runtime: the machine
// (a zone, or the mock) rather than the API object.
type RuntimePhase string

// The runtime phases.
const (
	// RuntimeAbsent: the runtime holds nothing for the pod.
	RuntimeAbsent RuntimePhase = "Absent"
	// RuntimeProvisioned: resources exist (network, dataset, zone
	// configuration); the pod has not been started.
	RuntimeProvisioned RuntimePhase = "Provisioned"
	// RuntimeRunning: the pod runs.
	RuntimeRunning RuntimePhase = "Running"
	// RuntimeStopped: the pod ran and no longer does; its resources remain
	// until it is deprovisioned.
	RuntimeStopped RuntimePhase = "Stopped"
	// RuntimeFailed: the runtime could not run the pod; Message says why.
	RuntimeFailed RuntimePhase = "Failed"
	// RuntimeExited: the pod's containers ran to their end by themselves
	// (a Job's work done, or given up); ExitCode says how. Its resources
	// remain until it is deprovisioned, and starting it again restarts
	// its containers.
	RuntimeExited RuntimePhase = "Exited"
)

// RuntimeState is what a runtime reports about one pod.
type RuntimeState struct {
	Phase RuntimePhase
	// Message says why, for RuntimeFailed.
	Message string
	// ExitCode is, for RuntimeExited, 0 when every container succeeded,
	// else the first container's code that was not 0; FinishedAt is when
	// the last container ended.
	ExitCode   int32
	FinishedAt time.Time
	// ExitsAt is, for RuntimeRunning, when the pod's containers will
	// have run to their end; zero when they run until they are stopped.
	ExitsAt time.Time
	// Restarts counts the times the pod's containers were started again
	// after they ended.
	Restarts int32
}

// RuntimeStatus is what a runtime reports when it has started a pod.
type RuntimeStatus struct {
	// PodIP is the pod's address, empty until IP address management
	// gives pods addresses.
	PodIP string
	// StartedAt is when the pod started, by herd's clock.
	StartedAt time.Time
	// ExitsAt is when the pod's containers will have run to their end;
	// zero when they run until they are stopped.
	ExitsAt time.Time
	// Restarts counts the times the pod's containers were started again
	// after they ended.
	Restarts int32
}

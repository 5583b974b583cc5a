package illumos

import "time"

// Phase is where a pod stands on the runtime.
type Phase string

// The phases.
const (
	PhaseAbsent      Phase = "Absent"
	PhaseProvisioned Phase = "Provisioned"
	PhaseRunning     Phase = "Running"
	PhaseStopped     Phase = "Stopped"
	PhaseFailed      Phase = "Failed"
)

// PodState is what the runtime reports about a pod.
type PodState struct {
	Phase   Phase
	Message string
	// Zone is the zone's own state; empty when there is no zone.
	Zone ZoneState
}

// PodStatus is what the runtime reports when it has started a pod.
type PodStatus struct {
	PodIP     string
	StartedAt time.Time
}

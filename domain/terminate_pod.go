package domain

import (
	"fmt"
	"time"
)

// TerminationStep is one step of a pod's way out after its deletion was
// requested, recorded once: repeating a step changes nothing.
type TerminationStep int

// The termination steps, in order.
const (
	// StepShutdownRequested: the runtime was asked to stop the pod.
	StepShutdownRequested TerminationStep = iota + 1
	// StepHalted: the grace period ran out and the pod was stopped hard.
	StepHalted
	// StepStopped: the runtime reports the pod no longer runs.
	StepStopped
	// StepDeprovisioned: the runtime's resources are gone.
	StepDeprovisioned
)

// terminationStepNames are the steps' names on the wire and in logs.
var terminationStepNames = map[TerminationStep]string{
	StepShutdownRequested: "ShutdownRequested",
	StepHalted:            "Halted",
	StepStopped:           "Stopped",
	StepDeprovisioned:     "Deprovisioned",
}

// String is the step's name: ShutdownRequested, Halted, Stopped or
// Deprovisioned.
func (s TerminationStep) String() string {
	if n, ok := terminationStepNames[s]; ok {
		return n
	}
	return fmt.Sprintf("TerminationStep(%d)", int(s))
}

// ParseTerminationStep reads a step's name, as String writes it.
func ParseTerminationStep(name string) (TerminationStep, error) {
	for s, n := range terminationStepNames {
		if n == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("termination step %q: want ShutdownRequested, Halted, Stopped or Deprovisioned: %w", name, ErrInvalid)
}

// RecordTermination records a termination step of a pod being deleted.
type RecordTermination struct {
	Step TerminationStep
}

func (c RecordTermination) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	d := p.Deletion
	if d == nil {
		return nil, fmt.Errorf("%s is not being deleted: %w", podRef(p), ErrConflict)
	}
	switch c.Step {
	case StepShutdownRequested:
		if d.ShutdownRequestedAt.IsZero() {
			return []Event{PodShutdownRequested{At: now}}, nil
		}
	case StepHalted:
		if d.HaltedAt.IsZero() && d.StoppedAt.IsZero() {
			return []Event{PodHalted{At: now}}, nil
		}
	case StepStopped:
		if d.StoppedAt.IsZero() {
			return []Event{PodStopped{At: now}}, nil
		}
	case StepDeprovisioned:
		if d.DeprovisionedAt.IsZero() {
			return []Event{PodDeprovisioned{At: now}}, nil
		}
	default:
		return nil, fmt.Errorf("termination step %d: %w", c.Step, ErrInvalid)
	}
	return nil, nil
}

// FinalizePod removes a pod being deleted from the fleet: the last event
// of its stream, after which watchers see it DELETED. Finalizers still on
// the pod hold it back (a conflict) until they are removed.
type FinalizePod struct {
	// Reason is why the pod goes: "Terminated" after a clean termination,
	// DeletionByPodGC when its node could not be reached.
	Reason string
	// WaitForFinalizers leaves a pod that finalizers still hold as it is,
	// without an error, rather than refusing: the termination reconciler
	// finalizes a pod once its steps are done, and the removal of the last
	// finalizer wakes it again.
	WaitForFinalizers bool
}

func (c FinalizePod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if p.Deletion == nil {
		return nil, fmt.Errorf("%s is not being deleted: %w", podRef(p), ErrConflict)
	}
	if len(p.Finalizers) > 0 && c.WaitForFinalizers {
		return nil, nil
	}
	if len(p.Finalizers) > 0 {
		return nil, fmt.Errorf("%s waits for finalizers %v: %w", podRef(p), p.Finalizers, ErrConflict)
	}
	return []Event{PodFinalized{Reason: c.Reason, At: now}}, nil
}

package domain

import (
	"fmt"
	"time"
)

// PodCommand is a command on one pod. As with NodeCommand, the method is
// unexported so that every command a pod accepts lives in this package.
type PodCommand interface {
	decidePod(p Pod, now time.Time) ([]Event, error)
}

// DecidePod returns the events that cmd causes on pod p at time now, or a
// typed error; see DecideNode for the contract, which is the same. p is the
// zero Pod (or one with only Namespace and Name set) when herd has never
// seen it.
func DecidePod(p Pod, cmd PodCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil pod command: %w", ErrInvalid)
	}
	return cmd.decidePod(p, now.UTC())
}

// requirePod returns ErrNotFound unless the pod exists.
func requirePod(p Pod) error {
	if p.Exists() {
		return nil
	}
	return fmt.Errorf("%s: %w", podRef(p), ErrNotFound)
}

// requireManaged refuses a command that only herd's own pods accept.
func requireManaged(p Pod) error {
	if err := requirePod(p); err != nil {
		return err
	}
	if p.Observed() {
		return fmt.Errorf("%s belongs to the kubelet of node %q; herd only observes it: %w", podRef(p), p.Spec.NodeName, ErrConflict)
	}
	return nil
}

// podRef names a pod in an error message.
func podRef(p Pod) string {
	return fmt.Sprintf("pod %q", p.Namespace+"/"+p.Name)
}

// DecidePodSequence decides cmds one after another, each on the pod as the
// events of those before it leave it, and returns all their events: how a
// caller issues several commands as one unit of work (mark a pod as a
// disruption target, then delete it). The first error stops it.
func DecidePodSequence(p Pod, now time.Time, cmds ...PodCommand) ([]Event, error) {
	return decideSequence(p, now, cmds, DecidePod, EvolvePod)
}

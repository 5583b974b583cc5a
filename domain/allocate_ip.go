package domain

import (
	"fmt"
	"time"
)

// IPPoolCommand is a command on one IP pool; the method is unexported so
// that every command a pool accepts lives in this package.
type IPPoolCommand interface {
	decideIPPool(p IPPool, n PoolNetwork, now time.Time) ([]Event, error)
	// pod is the UID of the pod whose allocations the decision reads.
	pod() string
}

// IPPoolCommandPod is the UID of the pod a pool command is about: the
// one pod whose allocations a repository loads to decide it (see
// IPPool.Allocations); "" for a nil command.
func IPPoolCommandPod(cmd IPPoolCommand) string {
	if cmd == nil {
		return ""
	}
	return cmd.pod()
}

// DecideIPPool returns the events cmd causes on pool p at time now, or a
// typed error. p.CIDR must be set, also for a pool that never handed
// anything out.
func DecideIPPool(p IPPool, cmd IPPoolCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil IP pool command: %w", ErrInvalid)
	}
	n, err := ParseIPPool(p.CIDR)
	if err != nil {
		return nil, err
	}
	return cmd.decideIPPool(p, n, now.UTC())
}

// AllocateIP hands a pod the lowest free address of the pool. It is
// idempotent per pod UID: a pod that holds an address gets no second one.
// A full pool refuses with a *PoolExhaustedError.
type AllocateIP struct {
	PodUID    string
	Namespace string
	Name      string
}

func (c AllocateIP) pod() string { return c.PodUID }

func (c AllocateIP) decideIPPool(p IPPool, n PoolNetwork, now time.Time) ([]Event, error) {
	var errs []FieldError
	if c.PodUID == "" {
		errs = append(errs, FieldError{Field: "podUID", Reason: "Required value"})
	}
	errs = append(errs, objectNameProblems(c.Namespace, c.Name)...)
	if err := invalid("IPAllocation", c.Namespace+"/"+c.Name, errs); err != nil {
		return nil, err
	}
	if _, ok := p.HolderOf(c.PodUID); ok {
		return nil, nil
	}
	off := p.lowestFree()
	if off >= n.Capacity {
		return nil, &PoolExhaustedError{Pool: p.CIDR, InUse: p.InUse, Capacity: n.Capacity}
	}
	return []Event{IPAllocated{Pool: p.CIDR, Address: n.Address(off).String(), PodUID: c.PodUID, Namespace: c.Namespace, Name: c.Name, At: now}}, nil
}

// ReleaseIP gives back whatever address a pod (by UID) holds in the pool.
// Releasing a pod that holds none changes nothing.
type ReleaseIP struct {
	PodUID string
	// Reason is recorded on the release; see IPReleased.
	Reason string
}

func (c ReleaseIP) pod() string { return c.PodUID }

func (c ReleaseIP) decideIPPool(p IPPool, _ PoolNetwork, now time.Time) ([]Event, error) {
	if c.PodUID == "" {
		return nil, invalid("IPAllocation", "", []FieldError{{Field: "podUID", Reason: "Required value"}})
	}
	a, ok := p.HolderOf(c.PodUID)
	if !ok {
		return nil, nil
	}
	return []Event{IPReleased{Pool: p.CIDR, Address: a.Address, PodUID: a.PodUID, Namespace: a.Namespace, Name: a.Name, Reason: c.Reason, At: now}}, nil
}

// FoldIPPool folds events into a pool the caller owns, changing its
// allocations and free addresses in place rather than copying them: a
// rebuild folds pools of thousands of addresses and would otherwise
// copy them all for every event.
func FoldIPPool(p *IPPool, evs ...Event) {
	n, err := ParseIPPool(p.CIDR)
	valid := err == nil
	for _, e := range evs {
		p.Version++
		switch e := e.(type) {
		case IPAllocated:
			if p.Allocations == nil {
				p.Allocations = map[string]IPAllocation{}
			}
			p.Allocations[e.Address] = IPAllocation{Address: e.Address, PodUID: e.PodUID, Namespace: e.Namespace, Name: e.Name, At: e.At}
			if off, ok := n.offsetOf(e.Address); valid && ok {
				p.take(off)
			}
		case IPReleased:
			delete(p.Allocations, e.Address)
			if len(p.Allocations) == 0 {
				p.Allocations = nil
			}
			if off, ok := n.offsetOf(e.Address); valid && ok {
				p.give(off)
			}
		}
	}
}

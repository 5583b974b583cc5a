package domain

import (
	"fmt"
	"net/netip"
	"time"
)

// PodNetwork is the address IPAM gave a pod, with what its runtime needs
// to configure it: the pool it came from, the prefix length and the
// gateway.
type PodNetwork struct {
	// Pool is the CIDR of the pool the address belongs to.
	Pool string `json:"pool"`
	// IP is the pod's address.
	IP string `json:"ip"`
	// PrefixLength is the pool's prefix length: the zone's
	// allowed-address is IP/PrefixLength.
	PrefixLength int `json:"prefixLength"`
	// Gateway is the pool's default router: its network address plus one.
	Gateway string `json:"gateway"`
}

// PodConditionIPAllocated is True once IPAM gave the pod an address, and
// False while its pools have none to give. It is herd's own condition, so
// its type is qualified by herd's domain, as Kubernetes asks of condition
// types it does not define.
const PodConditionIPAllocated PodConditionType = "herd.dev/IPAllocated"

// Reasons on the IPAllocated condition.
const (
	ReasonIPAllocated     = "IPAllocated"
	ReasonIPPoolExhausted = "IPPoolExhausted"
)

// PodIPAssigned records that IPAM gave the pod an address; the pod shows it as its
// podIP from now on.
type PodIPAssigned struct {
	Network PodNetwork `json:"network"`
	At      time.Time  `json:"at"`
}

// PodIPUnavailable records that no pool had an address for the pod; Message says
// which pool and how full.
type PodIPUnavailable struct {
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// EventType implements Event.
func (PodIPAssigned) EventType() string { return "PodIPAssigned" }

// EventType implements Event.
func (PodIPUnavailable) EventType() string { return "PodIPUnavailable" }

// AssignPodIP records the address IPAM allocated to a bound pod. Assigning
// the same address again changes nothing; a pod keeps the address it was
// given, so assigning another one is a conflict, and so is assigning one
// to a pod that is unbound, finished or being deleted (its address would
// only leak).
type AssignPodIP struct {
	Network PodNetwork
	// PodUID, when set, is the pod the address was allocated for: another
	// pod created under the same name since is refused with ErrConflict,
	// and the address goes back to the pool.
	PodUID string
}

func (c AssignPodIP) decidePod(p Pod, now time.Time) ([]Event, error) {
	if c.PodUID != "" && p.UID != c.PodUID {
		return nil, fmt.Errorf("%s was replaced since its address was allocated: %w", podRef(p), ErrConflict)
	}
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if err := c.validate(p.Name); err != nil {
		return nil, err
	}
	switch {
	case p.Network != nil && *p.Network == c.Network:
		return nil, nil
	case p.Network != nil:
		return nil, fmt.Errorf("%s already has IP %s from pool %s: %w", podRef(p), p.Network.IP, p.Network.Pool, ErrConflict)
	case p.Spec.NodeName == "":
		return nil, fmt.Errorf("%s is not bound to a node: %w", podRef(p), ErrConflict)
	case p.Terminating():
		return nil, fmt.Errorf("%s is being deleted: %w", podRef(p), ErrConflict)
	case p.Finished():
		return nil, fmt.Errorf("%s has finished: %w", podRef(p), ErrConflict)
	}
	return []Event{PodIPAssigned{Network: c.Network, At: now}}, nil
}

// validate checks that the address, gateway and prefix belong to the pool.
func (c AssignPodIP) validate(name string) error {
	n, err := ParseIPPool(c.Network.Pool)
	if err != nil {
		return invalid("Pod", name, []FieldError{{Field: "network.pool", Value: c.Network.Pool, Reason: err.Error()}})
	}
	var errs []FieldError
	if ip, err := netip.ParseAddr(c.Network.IP); err != nil {
		errs = append(errs, FieldError{Field: "network.ip", Value: c.Network.IP, Reason: "must be an IPv4 address"})
	} else if _, ok := n.Offset(ip); !ok {
		errs = append(errs, FieldError{Field: "network.ip", Value: c.Network.IP, Reason: "is not an address pool " + c.Network.Pool + " hands out"})
	}
	if c.Network.Gateway != n.Gateway.String() {
		errs = append(errs, FieldError{Field: "network.gateway", Value: c.Network.Gateway, Reason: "must be the pool's gateway " + n.Gateway.String()})
	}
	if c.Network.PrefixLength != n.Prefix.Bits() {
		errs = append(errs, FieldError{Field: "network.prefixLength", Value: fmt.Sprint(c.Network.PrefixLength), Reason: fmt.Sprintf("must be the pool's prefix length %d", n.Prefix.Bits())})
	}
	return invalid("Pod", name, errs)
}

// NetworkFor is the PodNetwork for an address of pool n.
func (n PoolNetwork) NetworkFor(ip string) PodNetwork {
	return PodNetwork{Pool: n.Prefix.String(), IP: ip, PrefixLength: n.Prefix.Bits(), Gateway: n.Gateway.String()}
}

// MarkPodIPUnavailable records that no pool had an address for the pod.
// It changes nothing when the pod has an address, is being deleted, or
// already carries the same message.
type MarkPodIPUnavailable struct {
	Message string
}

func (c MarkPodIPUnavailable) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if c.Message == "" {
		return nil, invalid("Pod", p.Name, []FieldError{{Field: "message", Reason: "Required value"}})
	}
	if p.Network != nil || p.Terminating() {
		return nil, nil
	}
	if cond, ok := p.Condition(PodConditionIPAllocated); ok && cond.Status == ConditionFalse && cond.Message == c.Message {
		return nil, nil
	}
	return []Event{PodIPUnavailable{Message: c.Message, At: now}}, nil
}

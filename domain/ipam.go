package domain

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// IPPool is the IP address management aggregate: one pool of pod
// addresses, carved from a CIDR, with every address it has handed out. Its
// stream ("ipam/<cidr>") is the arbiter of who holds an address: appends
// carry the pool's version, so two allocators racing for the lowest free
// address cannot both win.
//
// In a pool the network address is never handed out, the next one is the
// gateway, addresses are handed out from the one after it, and the
// broadcast address is never handed out either.
type IPPool struct {
	// CIDR is the pool's prefix in canonical form, such as "10.88.0.0/16".
	CIDR string `json:"cidr"`
	// Allocations are the addresses in use, by address.
	Allocations map[string]IPAllocation `json:"allocations,omitempty"`
	// Version is the number of events in the pool's stream.
	Version int64 `json:"version"`
}

// IPAllocation is one address held by one pod.
type IPAllocation struct {
	Address   string    `json:"address"`
	PodUID    string    `json:"podUID"`
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	At        time.Time `json:"at"`
}

// IPPoolStream is the name of the log stream that holds a pool's events.
func IPPoolStream(cidr string) string { return IPPoolAggregate.Stream(cidr) }

// ErrPoolExhausted is what every *PoolExhaustedError matches with
// errors.Is.
var ErrPoolExhausted = errors.New("IP pool exhausted")

// PoolExhaustedError says that a pool has no free address left, and how
// full it is.
type PoolExhaustedError struct {
	Pool     string
	InUse    int
	Capacity int
}

func (e *PoolExhaustedError) Error() string {
	return fmt.Sprintf("IP pool %s exhausted: %d of %d addresses in use", e.Pool, e.InUse, e.Capacity)
}

// Is makes errors.Is(err, ErrPoolExhausted) true.
func (e *PoolExhaustedError) Is(target error) bool { return target == ErrPoolExhausted }

// PoolNetwork is what a pool gives every pod it serves: the prefix length
// and the gateway (the network address plus one).
type PoolNetwork struct {
	Prefix  netip.Prefix
	Gateway netip.Addr
	// Capacity is how many addresses the pool can hand out: all of them
	// but the network, the gateway and the broadcast address.
	Capacity int
}

// ParseIPPool checks a pool's CIDR and returns what it gives its pods. A
// pool is IPv4 (herd hands out addresses below a broadcast address, which
// IPv6 has not), names its network address exactly, and has room for at
// least one pod: /30 or larger.
func ParseIPPool(cidr string) (PoolNetwork, error) {
	p, err := netip.ParsePrefix(strings.TrimSpace(cidr))
	switch {
	case err != nil:
		return PoolNetwork{}, fmt.Errorf("IP pool %q: want a CIDR such as 10.88.0.0/16: %w", cidr, ErrInvalid)
	case !p.Addr().Is4():
		return PoolNetwork{}, fmt.Errorf("IP pool %s: only IPv4 pools are supported: %w", cidr, ErrInvalid)
	case p.Masked() != p:
		return PoolNetwork{}, fmt.Errorf("IP pool %s: has host bits set; the network is %s: %w", cidr, p.Masked(), ErrInvalid)
	case p.Bits() > 30:
		return PoolNetwork{}, fmt.Errorf("IP pool %s: too small, want /30 or larger (a /30 holds one pod beside its network, gateway and broadcast addresses): %w", cidr, ErrInvalid)
	}
	return PoolNetwork{Prefix: p, Gateway: poolAddr(p, 1), Capacity: 1<<(32-p.Bits()) - 3}, nil
}

// Address returns the n-th address the pool hands out, from 0.
func (n PoolNetwork) Address(i int) netip.Addr { return poolAddr(n.Prefix, uint32(i)+2) }

// Offset returns the index of addr among the addresses the pool hands
// out, and false when the pool never hands it out.
func (n PoolNetwork) Offset(addr netip.Addr) (int, bool) {
	if !addr.Is4() || !n.Prefix.Contains(addr) {
		return 0, false
	}
	a, base := addr.As4(), n.Prefix.Addr().As4()
	off := int(binary.BigEndian.Uint32(a[:]) - binary.BigEndian.Uint32(base[:]))
	if off < 2 || off-2 >= n.Capacity {
		return 0, false
	}
	return off - 2, true
}

// poolAddr is the address off positions past the prefix's network address.
func poolAddr(p netip.Prefix, off uint32) netip.Addr {
	a := p.Addr().As4()
	binary.BigEndian.PutUint32(a[:], binary.BigEndian.Uint32(a[:])+off)
	return netip.AddrFrom4(a)
}

// HolderOf returns the allocation a pod (by UID) holds in the pool.
func (p IPPool) HolderOf(uid string) (IPAllocation, bool) {
	for _, a := range p.Allocations {
		if a.PodUID == uid {
			return a, true
		}
	}
	return IPAllocation{}, false
}

// IPPoolRepository is how the world outside the domain stores pools.
type IPPoolRepository interface {
	// UpdateIPPool runs update on the pool's current state (an empty
	// pool with Version 0 when it never handed anything out) in one
	// transaction and appends what it returns with the pool's version as
	// the expected version, as UpdateNode does for nodes.
	UpdateIPPool(ctx context.Context, cidr string, update func(IPPool) ([]Event, error)) (IPPool, error)
}

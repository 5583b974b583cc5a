package domain

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// IPPool is the IP address management aggregate: one pool of pod
// addresses, carved from a CIDR. Its stream ("ipam/<cidr>") is the
// arbiter of who holds an address: appends carry the pool's version, so
// two allocators racing for the lowest free address cannot both win.
//
// A decision reads only what it touches: how many addresses are in use,
// where the free ones are (Next and Holes, a few numbers however many pods
// the pool serves), and the allocations of the pod a command names. A
// repository loads those and nothing else, so allocating or releasing
// costs the same in a pool of ten addresses in use as in one of ten
// thousand (see the architecture note).
//
// In a pool the network address is never handed out, the next one is the
// gateway, addresses are handed out from the one after it, and the
// broadcast address is never handed out either.
type IPPool struct {
	// CIDR is the pool's prefix in canonical form, such as "10.88.0.0/16".
	CIDR string `json:"cidr"`
	// Allocations are the addresses in use that this state knows of, by
	// address: every one in a pool folded from its whole stream (a
	// rebuild, a test), only those of the pod a command names in a pool a
	// repository loaded to decide that command. Decisions read no others.
	Allocations map[string]IPAllocation `json:"allocations,omitempty"`
	// Version is the number of events in the pool's stream.
	Version int64 `json:"version"`
	// InUse is how many addresses the pool has handed out and not taken
	// back.
	InUse int `json:"-"`
	// Next is the offset (see PoolNetwork.Address) from which every
	// address is free; Holes are the runs of free addresses below it, in
	// ascending order, neither touching nor overlapping. The lowest free
	// address is the first hole's first, or Next when there is no hole.
	// Both are derived from the events (IPPoolOf derives them from the
	// allocations alone), so they are left out of the pool's JSON: a
	// snapshot of a pool holds what it held before they existed.
	Next  int       `json:"-"`
	Holes []IPRange `json:"-"`
}

// IPRange is a run of free addresses of a pool, by offset: From up to,
// not including, To.
type IPRange struct{ From, To int }

// IPPoolOf is the pool with cidr whose stream holds version events and
// leaves allocs in use: its free addresses derived from them. A
// repository whose row of a pool was written before herd kept the free
// addresses beside it derives them this way, once.
func IPPoolOf(cidr string, version int64, allocs []IPAllocation) IPPool {
	p := IPPool{CIDR: cidr, Version: version}
	n, err := ParseIPPool(cidr)
	if err != nil {
		return p
	}
	offs := make([]int, 0, len(allocs))
	for _, a := range allocs {
		if off, ok := n.offsetOf(a.Address); ok {
			offs = append(offs, off)
		}
	}
	slices.Sort(offs)
	for _, off := range slices.Compact(offs) {
		p.take(off)
	}
	return p
}

// lowestFree is the offset of the lowest free address; Capacity or more
// when the pool is full.
func (p IPPool) lowestFree() int {
	if len(p.Holes) > 0 {
		return p.Holes[0].From
	}
	return p.Next
}

// take marks the address at off in use. Holes is changed in place: the
// caller owns the pool (FoldIPPool).
func (p *IPPool) take(off int) {
	if off >= p.Next {
		p.InUse++
		if off > p.Next {
			// Only a log that skipped addresses does this; herd always
			// hands out the lowest free one.
			p.Holes = append(p.Holes, IPRange{From: p.Next, To: off})
		}
		p.Next = off + 1
		return
	}
	i, ok := p.holeOf(off)
	if !ok {
		return // in use already
	}
	p.InUse++
	h := p.Holes[i]
	switch {
	case h.From == off && h.To == off+1:
		p.Holes = slices.Delete(p.Holes, i, i+1)
	case h.From == off:
		p.Holes[i].From++
	case h.To == off+1:
		p.Holes[i].To--
	default:
		p.Holes = slices.Insert(p.Holes, i+1, IPRange{From: off + 1, To: h.To})
		p.Holes[i].To = off
	}
}

// give marks the address at off free. Holes is changed in place, as in
// take.
func (p *IPPool) give(off int) {
	if off >= p.Next {
		return // free already
	}
	if off == p.Next-1 {
		p.InUse--
		p.Next = off
		if last := len(p.Holes) - 1; last >= 0 && p.Holes[last].To == p.Next {
			p.Next = p.Holes[last].From
			p.Holes = p.Holes[:last]
		}
		return
	}
	// i is the first hole that starts after off.
	i, _ := slices.BinarySearchFunc(p.Holes, off, func(h IPRange, off int) int { return cmp.Compare(h.From, off+1) })
	if i > 0 && p.Holes[i-1].To > off {
		return // free already
	}
	p.InUse--
	joinsPrev := i > 0 && p.Holes[i-1].To == off
	joinsNext := i < len(p.Holes) && p.Holes[i].From == off+1
	switch {
	case joinsPrev && joinsNext:
		p.Holes[i-1].To = p.Holes[i].To
		p.Holes = slices.Delete(p.Holes, i, i+1)
	case joinsPrev:
		p.Holes[i-1].To++
	case joinsNext:
		p.Holes[i].From--
	default:
		p.Holes = slices.Insert(p.Holes, i, IPRange{From: off, To: off + 1})
	}
}

// holeOf returns the index of the hole that holds off.
func (p IPPool) holeOf(off int) (int, bool) {
	i, _ := slices.BinarySearchFunc(p.Holes, off, func(h IPRange, off int) int { return cmp.Compare(h.From, off+1) })
	if i > 0 && p.Holes[i-1].To > off {
		return i - 1, true
	}
	return 0, false
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

// offsetOf is Offset of an address in text.
func (n PoolNetwork) offsetOf(addr string) (int, bool) {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return 0, false
	}
	return n.Offset(a)
}

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

// HolderOf returns the allocation a pod (by UID) holds in the pool, among
// those the state knows of (see Allocations).
func (p IPPool) HolderOf(uid string) (IPAllocation, bool) {
	for _, a := range p.Allocations {
		if a.PodUID == uid {
			return a, true
		}
	}
	return IPAllocation{}, false
}

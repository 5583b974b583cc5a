package domain

import "time"

// IPAllocated records that a pool handed an address to a pod.
type IPAllocated struct {
	Pool      string    `json:"pool"`
	Address   string    `json:"address"`
	PodUID    string    `json:"podUID"`
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	At        time.Time `json:"at"`
}

// IPReleased records that a pod's address went back to its pool, free for the next
// pod. Reason says why: "PodFinalized" when its pod left the fleet,
// "Orphaned" when herd found it held by a pod that no longer exists,
// "Superseded" when the pod had already been given another address.
type IPReleased struct {
	Pool      string    `json:"pool"`
	Address   string    `json:"address"`
	PodUID    string    `json:"podUID"`
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (IPAllocated) EventType() string { return "IPAllocated" }

// EventType implements Event.
func (IPReleased) EventType() string { return "IPReleased" }

// IPPoolAggregate is the IP pool in the log: streams "ipam/CIDR" and the
// events they hold.
var IPPoolAggregate = defineAggregate("ipam",
	eventOf[IPAllocated](1),
	eventOf[IPReleased](1),
)

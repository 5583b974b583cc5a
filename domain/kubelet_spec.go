package domain

import (
	"maps"
	"time"
)

// ObserveMachine records what a kubelet's /spec says of its machine (the
// CPU count and memory its cAdvisor sees, the machine's identity and its
// boot) for the resources and System Info fields the kubelet gave no
// other figure for, and the kubelet's version its /metrics gives. Without it a kubelet node has no CPU capacity, and
// kubectl describe divides CPU requests by zero.
//
// It records NodeMachineObserved only when it changes something on the
// node: the kubelet is polled again and again, and an unchanged machine is
// not news. A resource or field the command leaves out (zero or empty) is
// left as the node has it.
type ObserveMachine struct {
	// Capacity and Allocatable are set resource by resource.
	Capacity    ResourceList
	Allocatable ResourceList
	MachineID   string
	SystemUUID  string
	BootID      string
	// AgentVersion is the kubelet's version, as its /metrics'
	// kubernetes_build_info says.
	AgentVersion string
}

// NodeMachineObserved records that a kubelet's /spec told herd something
// new about its machine: the resources and System Info fields it sets,
// each replacing the node's own; the rest is as it was.
type NodeMachineObserved struct {
	Capacity    ResourceList `json:"capacity,omitempty"`
	Allocatable ResourceList `json:"allocatable,omitempty"`
	MachineID   string       `json:"machineID,omitempty"`
	SystemUUID  string       `json:"systemUUID,omitempty"`
	BootID      string       `json:"bootID,omitempty"`
	// AgentVersion is the kubelet's version; empty in events recorded
	// before herd read it.
	AgentVersion string    `json:"agentVersion,omitempty"`
	At           time.Time `json:"at"`
}

// EventType implements Event.
func (NodeMachineObserved) EventType() string { return "NodeMachineObserved" }

func (c ObserveMachine) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	var fields []FieldError
	for _, l := range []struct {
		field string
		list  ResourceList
	}{{"capacity", c.Capacity}, {"allocatable", c.Allocatable}} {
		for name, v := range l.list {
			if v < 0 {
				fields = append(fields, FieldError{Field: l.field + "." + name, Reason: "must not be negative"})
			}
		}
	}
	if len(fields) > 0 {
		return nil, invalid("Node", n.Name, fields)
	}
	e := NodeMachineObserved{Capacity: cloneResources(c.Capacity), Allocatable: cloneResources(c.Allocatable),
		MachineID: c.MachineID, SystemUUID: c.SystemUUID, BootID: c.BootID, AgentVersion: c.AgentVersion, At: now}
	if e.apply(n).sameMachine(n) {
		return nil, nil
	}
	return []Event{e}, nil
}

// apply returns n with what e sets; the rest of n, maps included, is
// shared, as EvolveNode allows.
func (e NodeMachineObserved) apply(n Node) Node {
	if len(e.Capacity) > 0 {
		n.Capacity = mergedResources(n.Capacity, e.Capacity)
	}
	if len(e.Allocatable) > 0 {
		n.Allocatable = mergedResources(n.Allocatable, e.Allocatable)
	}
	if e.MachineID != "" {
		n.Info.MachineID = e.MachineID
	}
	if e.SystemUUID != "" {
		n.Info.SystemUUID = e.SystemUUID
	}
	if e.BootID != "" {
		n.Info.BootID = e.BootID
	}
	if e.AgentVersion != "" {
		n.Info.AgentVersion = e.AgentVersion
	}
	return n
}

// mergedResources returns a new list with base's resources, each of set
// replacing base's.
func mergedResources(base, set ResourceList) ResourceList {
	out := make(ResourceList, len(base)+len(set))
	maps.Copy(out, base)
	maps.Copy(out, set)
	return out
}

// sameMachine reports whether n and o have the same resources and
// System Info.
func (n Node) sameMachine(o Node) bool {
	return maps.Equal(n.Capacity, o.Capacity) && maps.Equal(n.Allocatable, o.Allocatable) && n.Info == o.Info
}

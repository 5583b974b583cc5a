package domain

import "unique"

// A fleet repeats itself: every kubelet reports the same condition
// reasons and messages, the same label keys, the same OS, architecture
// and versions, and every node's lease lives in kube-node-lease. Decoded
// events hand herd's memory (the watch hub's objects, the unit of work's
// nodes) a fresh copy of each such string per node; interning them as
// they are decoded keeps one copy for the process. Strings are shared,
// never changed, so sharing them changes no value: the objects encode,
// compare and replay exactly as before.

// intern is s, stored once for the process.
func intern(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}

// internMap is m with its keys and values interned; nil stays nil.
func internMap[M ~map[string]V, V any](m M, value func(V) V) M {
	if m == nil {
		return nil
	}
	out := make(M, len(m))
	for k, v := range m {
		out[intern(k)] = value(v)
	}
	return out
}

func internLabels(m map[string]string) map[string]string { return internMap(m, intern) }

// internedStrings is a copy of m with its keys and values interned; empty
// or nil gives nil, as cloneStrings does.
func internedStrings(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return internLabels(m)
}

func same[V any](v V) V { return v }

// internable is an event whose decoded strings repeat across a fleet:
// UnmarshalEventWith interns them.
type internable interface {
	interned() Event
}

// internedClone is a deep copy of r, as clone makes it, with the strings
// a fleet repeats interned as interned interns them: what EvolveNode keeps
// of a registration, whether its event was decoded from the log or made
// by this process from a request. The labels are left to
// withDerivedLabels, which copies them again.
func (r Registration) internedClone() Registration {
	c := r
	c.Annotations = internedStrings(r.Annotations)
	c.Capacity = cloneResources(r.Capacity)
	c.Allocatable = cloneResources(r.Allocatable)
	c.Addresses = cloneSlice(r.Addresses)
	for i := range c.Addresses {
		c.Addresses[i].Type = intern(c.Addresses[i].Type)
	}
	c.Kind = NodeKind(intern(string(c.Kind)))
	c.Info = c.Info.interned()
	return c
}

// interned is the information with the strings a fleet repeats (versions,
// OS, architecture) interned; the machine's own IDs are left as they are.
func (i NodeInfo) interned() NodeInfo {
	i.AgentVersion, i.KernelVersion, i.OSImage = intern(i.AgentVersion), intern(i.KernelVersion), intern(i.OSImage)
	i.OperatingSystem, i.Architecture = intern(i.OperatingSystem), intern(i.Architecture)
	i.ContainerRuntimeVersion, i.KubeProxyVersion = intern(i.ContainerRuntimeVersion), intern(i.KubeProxyVersion)
	return i
}

func (r Registration) interned() Registration {
	r.Kind = NodeKind(intern(string(r.Kind)))
	r.Labels = internLabels(r.Labels)
	r.Annotations = internLabels(r.Annotations)
	r.Capacity = internMap(r.Capacity, same[int64])
	r.Allocatable = internMap(r.Allocatable, same[int64])
	for i := range r.Addresses {
		r.Addresses[i].Type = intern(r.Addresses[i].Type)
	}
	r.Info = r.Info.interned()
	return r
}

func (e NodeRegistered) interned() Event {
	e.Registration = e.Registration.interned()
	return e
}

func (e NodeRestarted) interned() Event {
	e.Registration = e.Registration.interned()
	e.Reason = intern(e.Reason)
	return e
}

func (e NodeConditionChanged) interned() Event {
	e.Type, e.From, e.Status = ConditionType(intern(string(e.Type))), ConditionStatus(intern(string(e.From))), ConditionStatus(intern(string(e.Status)))
	e.Reason, e.Message = intern(e.Reason), intern(e.Message)
	return e
}

func (e NodeStatusChanged) interned() Event {
	conds := make([]ConditionChange, len(e.Conditions))
	for i, c := range e.Conditions {
		c.Type, c.From, c.Status = ConditionType(intern(string(c.Type))), ConditionStatus(intern(string(c.From))), ConditionStatus(intern(string(c.Status)))
		c.Reason, c.Message = intern(c.Reason), intern(c.Message)
		conds[i] = c
	}
	e.Conditions = conds
	e.NotReady, e.NotReadyReason = ConditionStatus(intern(string(e.NotReady))), intern(e.NotReadyReason)
	return e
}

func internOwners(owners []OwnerReference) {
	for i := range owners {
		owners[i].APIVersion, owners[i].Kind = intern(owners[i].APIVersion), intern(owners[i].Kind)
	}
}

// internedOwners is a copy of owners with their API versions and kinds
// interned; empty or nil gives nil.
func internedOwners(owners []OwnerReference) []OwnerReference {
	owners = cloneSlice(owners)
	internOwners(owners)
	return owners
}

// interned is e with the strings a fleet repeats interned, for a kind
// that asks for it (ObjectKind.InternsDecoded); e as it is for another.
func (e ObjectCreated[S, St]) interned() Event {
	if !kindOf[S, St]().InternsDecoded {
		return e
	}
	e.Namespace = intern(e.Namespace)
	e.Labels, e.Annotations = internLabels(e.Labels), internLabels(e.Annotations)
	internOwners(e.Owners)
	return e
}

// interned is e with the strings a fleet repeats interned, for a kind
// that asks for it (ObjectKind.InternsDecoded); e as it is for another.
func (e ObjectUpdated[S, St]) interned() Event {
	if !kindOf[S, St]().InternsDecoded {
		return e
	}
	e.Labels, e.Annotations = internLabels(e.Labels), internLabels(e.Annotations)
	internOwners(e.Owners)
	return e
}

// Interned is n with the strings a fleet repeats interned, as EvolveNode
// keeps them: for a node decoded from its row, which holds a copy of each
// string of its own. Its maps and slices are copies; n is not changed.
func (n Node) Interned() Node {
	n.Kind = NodeKind(intern(string(n.Kind)))
	n.Labels = internedStrings(n.Labels)
	n.Annotations = internedStrings(n.Annotations)
	n.Addresses = cloneSlice(n.Addresses)
	for i := range n.Addresses {
		n.Addresses[i].Type = intern(n.Addresses[i].Type)
	}
	n.Info = n.Info.interned()
	n.Conditions = cloneSlice(n.Conditions)
	for i := range n.Conditions {
		c := &n.Conditions[i]
		c.Type, c.Status = ConditionType(intern(string(c.Type))), ConditionStatus(intern(string(c.Status)))
		c.Reason, c.Message = intern(c.Reason), intern(c.Message)
	}
	n.AgentState = AgentState(intern(string(n.AgentState)))
	return n
}

// Interned is l with the strings a fleet repeats interned, as EvolveLease
// keeps them: for a Lease decoded from its row. Its maps and slices are
// copies; l is not changed.
func (l Lease) Interned() Lease {
	l.Namespace = intern(l.Namespace)
	l.Labels, l.Annotations = internedStrings(l.Labels), internedStrings(l.Annotations)
	l.Owners = internedOwners(l.Owners)
	return l
}

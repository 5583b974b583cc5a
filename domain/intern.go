package domain

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unique"
)

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

// internedResources is a copy of r with its names interned; empty or nil
// gives nil, as cloneResources does.
func internedResources(r ResourceList) ResourceList {
	if len(r) == 0 {
		return nil
	}
	return internMap(r, same[int64])
}

func same[V any](v V) V { return v }

// internable is an event whose decoded strings repeat across a fleet:
// UnmarshalEventWith interns them.
type internable interface {
	interned() Event
}

// internedClone is a copy of r, as clone makes it, with the strings a
// fleet repeats interned as interned interns them, and its annotations and
// resources the process's copy of maps equal to them (sharedMaps), never
// the event's own: what EvolveNode keeps
// of a registration, whether its event was decoded from the log or made
// by this process from a request. The labels are left to
// withDerivedLabels, which copies them again.
func (r Registration) internedClone() Registration {
	c := r
	c.Annotations = sharedStrings.share(internedStrings(r.Annotations))
	c.Capacity = sharedResources.share(internedResources(r.Capacity))
	c.Allocatable = sharedResources.share(internedResources(r.Allocatable))
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

func (e LeaseCreated) interned() Event {
	e.Namespace = intern(e.Namespace)
	e.Labels, e.Annotations = internLabels(e.Labels), internLabels(e.Annotations)
	internOwners(e.Owners)
	return e
}

func (e LeaseUpdated) interned() Event {
	e.Labels, e.Annotations = internLabels(e.Labels), internLabels(e.Annotations)
	internOwners(e.Owners)
	return e
}

// A fleet's nodes mostly come in a few shapes: the same capacity and
// allocatable resources for every machine of a type, the same annotations
// from every kubelet. sharedMaps keeps one copy of each such map for the
// process, so that every node of a shape (and the unit of work's node
// with the watch hub's) holds that one. Maps in a Node are never written
// in place (EvolveNode copies before it changes one, and Node.Clone
// copies them all), so sharing one changes no value. The table is
// bounded: past maxSharedMaps shapes, or for a map of more than
// maxSharedMapLen entries, a map is kept as it is.
type sharedMaps[V any] struct {
	mu     sync.Mutex
	byKey  map[string]map[string]V
	encode func(V) string
}

const (
	maxSharedMaps   = 4096
	maxSharedMapLen = 16
)

var (
	sharedStrings   = sharedMaps[string]{encode: func(v string) string { return v }}
	sharedResources = sharedMaps[int64]{encode: func(v int64) string { return strconv.FormatInt(v, 10) }}
)

// share is the process's copy of a map equal to m, m itself when it keeps
// none. m must not be written once given.
func (s *sharedMaps[V]) share(m map[string]V) map[string]V {
	if len(m) == 0 || len(m) > maxSharedMapLen {
		return m
	}
	key := s.encodes(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	// A kept map that no longer matches its key was written by someone
	// (a bug; a test that scribbles on a node): m takes its place.
	if kept, ok := s.byKey[key]; ok && s.encodes(kept) == key {
		return kept
	}
	if _, ok := s.byKey[key]; !ok && len(s.byKey) >= maxSharedMaps {
		return m
	}
	if s.byKey == nil {
		s.byKey = make(map[string]map[string]V)
	}
	s.byKey[key] = m
	return m
}

// encodes is m's content as one string, its keys in order: its key in
// the table.
func (s *sharedMaps[V]) encodes(m map[string]V) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		b.WriteString(strconv.Quote(s.encode(m[k])))
		b.WriteByte(',')
	}
	return b.String()
}

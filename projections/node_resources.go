package projections

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"herd/domain"
)

// A fleet's machines come in few shapes: a hundred thousand kubelets
// register with a handful of distinct capacities and allocatables. Each
// registration decodes its own pair of maps, and the watch hub, the unit
// of work and every older version the hub keeps held a pair per node
// (about 500 bytes a node, 59 MB at 100,000 nodes). Nodes are values
// whose maps are never changed in place (domain.EvolveNode shares them
// between versions already), so equal lists can be one map for the
// whole process: a node encodes, compares and replays exactly as before.

// maxSharedResourceLists bounds the lists kept: a fleet with more
// distinct shapes than this keeps its further ones per node, as before,
// rather than growing the table without end.
const maxSharedResourceLists = 4096

// sharedResources is the process's table of resource lists by content.
var sharedResources = resourceLists{m: map[string]domain.ResourceList{}}

type resourceLists struct {
	mu sync.Mutex
	m  map[string]domain.ResourceList
}

// share returns the list kept for l's content, keeping l when none is and
// there is room; an empty list comes back as it is.
func (t *resourceLists) share(l domain.ResourceList) domain.ResourceList {
	if len(l) == 0 {
		return l
	}
	key := resourceKey(l)
	t.mu.Lock()
	defer t.mu.Unlock()
	if kept, ok := t.m[key]; ok {
		return kept
	}
	if len(t.m) < maxSharedResourceLists {
		t.m[key] = l
	}
	return l
}

// resourceKey is l's content as one string, its names in order, each
// after its length: no two lists have one key, whatever their names hold.
func resourceKey(l domain.ResourceList) string {
	names := make([]string, 0, len(l))
	for name := range l {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		b.WriteString(strconv.Itoa(len(name)))
		b.WriteByte(':')
		b.WriteString(name)
		b.WriteString(strconv.FormatInt(l[name], 10))
		b.WriteByte(' ')
	}
	return b.String()
}

// withSharedResources is n with its capacity and allocatable taken from
// the shared table, when ev is one that sets them.
func withSharedResources(n domain.Node, ev domain.Event) domain.Node {
	switch ev.(type) {
	case domain.NodeRegistered, domain.NodeRestarted, domain.NodeMachineObserved:
		return sharingResources(n)
	}
	return n
}

// sharingResources is n with its capacity and allocatable taken from the
// shared table: a node decoded from its row, as the watch hub starts
// from the view.
func sharingResources(n domain.Node) domain.Node {
	n.Capacity = sharedResources.share(n.Capacity)
	n.Allocatable = sharedResources.share(n.Allocatable)
	return n
}

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
// Annotations are the same: every kubelet of a fleet sets the same few
// (node.alpha.kubernetes.io/ttl, the attach-detach controller's), so they
// share one table of their own.

// maxSharedResourceLists bounds the lists kept: a fleet with more
// distinct shapes than this keeps its further ones per node, as before,
// rather than growing the table without end. The annotations' table has
// the same bound.
const maxSharedResourceLists = 4096

// sharedResources is the process's table of resource lists by content;
// sharedAnnotations its table of annotation sets.
var (
	sharedResources   = newResourceLists()
	sharedAnnotations = sharedMaps[map[string]string, string]{m: map[string]map[string]string{},
		value: func(v string) string { return strconv.Itoa(len(v)) + ":" + v }}
)

type resourceLists = sharedMaps[domain.ResourceList, int64]

// newResourceLists is an empty table of resource lists.
func newResourceLists() resourceLists {
	return resourceLists{m: map[string]domain.ResourceList{}, value: func(v int64) string { return strconv.FormatInt(v, 10) }}
}

// sharedMaps keeps one map for each content it was given, up to
// maxSharedResourceLists; value writes a value into a map's key.
type sharedMaps[M ~map[string]V, V any] struct {
	mu    sync.Mutex
	m     map[string]M
	value func(V) string
}

// share returns the map kept for l's content, keeping l when none is and
// there is room; an empty map comes back as it is.
func (t *sharedMaps[M, V]) share(l M) M {
	if len(l) == 0 {
		return l
	}
	key := t.key(l)
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

// key is l's content as one string, its names in order, each after its
// length: no two maps have one key, whatever their names hold, as long as
// value writes each value after its length too, or as digits.
func (t *sharedMaps[M, V]) key(l M) string {
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
		b.WriteString(t.value(l[name]))
		b.WriteByte(' ')
	}
	return b.String()
}

// withSharedResources is n with its capacity, allocatable and
// annotations taken from the shared tables, when ev is one that sets them.
func withSharedResources(n domain.Node, ev domain.Event) domain.Node {
	switch ev.(type) {
	case domain.NodeRegistered, domain.NodeRestarted, domain.NodeMachineObserved, domain.NodeLabelsChanged:
		return sharingResources(n)
	}
	return n
}

// sharingResources is n with its capacity, allocatable and annotations
// taken from the shared tables: a node decoded from its row, as the watch
// hub starts from the view.
func sharingResources(n domain.Node) domain.Node {
	n.Capacity = sharedResources.share(n.Capacity)
	n.Allocatable = sharedResources.share(n.Allocatable)
	n.Annotations = sharedAnnotations.share(n.Annotations)
	return n
}

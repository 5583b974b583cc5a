package watch

import (
	"cmp"
	"slices"
	"strings"
)

// keyIndex is one kind's objects in key order, for lists answered from
// the hub's memory: every stream the hub has seen exist, deleted ones
// included (a list of an earlier moment may need them), with its key.
// Keys are fixed for a stream's life, so the order changes only when an
// object appears; heartbeats leave it alone.
type keyIndex struct {
	// keys holds every stream's key. Written by the polling goroutine (and
	// Start) under the hub's lock; that goroutine may read it without.
	keys map[string]string
	// sorted is keys in key order, built on the first list after a stream
	// was added (nil until then). A built slice never changes, so a
	// listing may go on reading one that has since been replaced.
	sorted []keyed
}

// keyed is one stream and its key.
type keyed struct{ key, stream string }

func newKeyIndexes(n int) []keyIndex {
	ix := make([]keyIndex, n)
	for i := range ix {
		ix[i].keys = map[string]string{}
	}
	return ix
}

// has reports whether stream is indexed already.
func (ix *keyIndex) has(stream string) bool {
	_, ok := ix.keys[stream]
	return ok
}

// add indexes stream under key; the caller holds the hub's lock.
func (ix *keyIndex) add(stream, key string) {
	if _, ok := ix.keys[stream]; ok {
		return
	}
	ix.keys[stream] = key
	ix.sorted = nil
}

// inOrder is the kind's streams in key order; the caller holds the hub's
// lock for writing when a stream was added since the last call.
func (ix *keyIndex) inOrder() []keyed {
	if ix.sorted == nil {
		s := make([]keyed, 0, len(ix.keys))
		for stream, key := range ix.keys {
			s = append(s, keyed{key: key, stream: stream})
		}
		slices.SortFunc(s, func(a, b keyed) int { return compareKeys(a.key, b.key) })
		ix.sorted = s
	}
	return ix.sorted
}

// compareKeys orders keys as the views order their rows: a namespaced
// key ("namespace/name") by namespace, then name, so that one
// namespace's objects stand together ("default/b" before "default-2/a",
// which plain string order would put first since '-' sorts before '/').
func compareKeys(a, b string) int {
	an, arest, _ := strings.Cut(a, "/")
	bn, brest, _ := strings.Cut(b, "/")
	if c := cmp.Compare(an, bn); c != 0 {
		return c
	}
	return cmp.Compare(arest, brest)
}

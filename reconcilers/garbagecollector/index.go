package garbagecollector

import (
	"sync"
)

// fullReadEvery is how many resyncs pass between two full reads of a
// namespace's indexed kinds, once the index holds them: the safety net
// for a change the index missed (an event set aside as unreadable). At
// the default period, every ten minutes.
const fullReadEvery = 20

// index remembers, by namespace, the objects of the indexed kinds (the
// ConfigMaps and the Leases, whose creations, owner changes and
// deletions are all watched, each on the object's own key) that name
// owners, with those owners: what an informer's cache gives Kubernetes'
// collector. A namespace's pass judges them from it without listing
// them: it reads each owner once, and reads again only the objects some
// owner of which is not there as an owner that keeps them (gone, being
// deleted in the foreground, deleted orphaning them). A fleet's node
// leases, a hundred thousand in one namespace each owned by its node
// that exists, are not decoded again every resync.
//
// The index may hold an object that changed or went since (that one is
// read again before anything is done to it, so the worst it does is hold
// an owner's deletion in the foreground a pass longer); it must never
// miss one that exists with owners. So an entry is put from a read newer
// than its own, and taken out only by a read, after which the object's
// next event queues it again; a full read takes out the entries it did
// not find only if nothing put them since it began. A namespace is read
// in full by its first pass after the collector starts running (after a
// restart, or a replica's new lead: events went unseen before), and
// again every fullReadEvery resyncs.
type index struct {
	mu sync.Mutex
	// seq numbers every put, so that a full read sees what was put while
	// it read.
	seq     uint64
	resyncs int
	spaces  map[string]*space
}

// space is one namespace in the index.
type space struct {
	// read says every indexed kind of the namespace was listed since the
	// collector started running, at resync readAt.
	read   bool
	readAt int
	deps   map[depKey]entry
}

// depKey names an object of an indexed kind in its namespace.
type depKey struct {
	kind *kind
	name string
}

// entry is an object as last read, and the put that recorded it.
type entry struct {
	seq uint64
	d   dependent
}

// reset forgets everything: every namespace is read in full again.
func (ix *index) reset() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.spaces = map[string]*space{}
}

// spaceLocked is the namespace's space, made when missing.
func (ix *index) spaceLocked(namespace string) *space {
	if ix.spaces == nil {
		ix.spaces = map[string]*space{}
	}
	s := ix.spaces[namespace]
	if s == nil {
		s = &space{deps: map[depKey]entry{}}
		ix.spaces[namespace] = s
	}
	return s
}

// put records d as read, unless the index holds a newer read of it.
func (ix *index) put(d dependent) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.putLocked(d)
}

func (ix *index) putLocked(d dependent) {
	s := ix.spaceLocked(d.namespace)
	k := depKey{d.kind, d.name}
	if e, ok := s.deps[k]; ok && e.d.resourceVersion > d.resourceVersion {
		return
	}
	ix.seq++
	s.deps[k] = entry{seq: ix.seq, d: d}
}

// remove forgets the object, read just now as gone or naming no owner;
// with seq non-zero only if nothing put it since that entry.
func (ix *index) remove(k *kind, namespace, name string, seq uint64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.spaces[namespace]
	if s == nil {
		return
	}
	key := depKey{k, name}
	if e, ok := s.deps[key]; ok && (seq == 0 || e.seq == seq) {
		delete(s.deps, key)
	}
}

// due says whether the namespace's next pass reads its indexed kinds in
// full.
func (ix *index) due(namespace string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.spaces[namespace]
	return s == nil || !s.read || ix.resyncs-s.readAt >= fullReadEvery
}

// seqs are the namespace's entries' puts, taken before a full read.
func (ix *index) seqs(namespace string) map[depKey]uint64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	out := map[depKey]uint64{}
	if s := ix.spaces[namespace]; s != nil {
		for k, e := range s.deps {
			out[k] = e.seq
		}
	}
	return out
}

// replace records a full read of the namespace's objects of kind k:
// those listed, and not those not listed, unless put since before (the
// entries' puts before the read).
func (ix *index) replace(k *kind, namespace string, listed []dependent, before map[depKey]uint64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.spaceLocked(namespace)
	found := make(map[string]bool, len(listed))
	for _, d := range listed {
		found[d.name] = true
		ix.putLocked(d)
	}
	for key, seq := range before {
		if key.kind == k && !found[key.name] && s.deps[key].seq == seq {
			delete(s.deps, key)
		}
	}
}

// readFully records that every indexed kind of the namespace was just
// listed.
func (ix *index) readFully(namespace string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.spaceLocked(namespace)
	s.read, s.readAt = true, ix.resyncs
}

// entries are the namespace's entries, a copy.
func (ix *index) entries(namespace string) []entry {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.spaces[namespace]
	if s == nil {
		return nil
	}
	out := make([]entry, 0, len(s.deps))
	for _, e := range s.deps {
		out = append(out, e)
	}
	return out
}

// resynced counts a resync, which found the namespaces named: those of
// the index no longer among them are forgotten (read in full should
// they come back).
func (ix *index) resynced(namespaces map[string]bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.resyncs++
	for ns := range ix.spaces {
		if !namespaces[ns] {
			delete(ix.spaces, ns)
		}
	}
}

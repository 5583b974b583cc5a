package watch

import "sort"

// entry is one event of a watched resource: the object it touched as it
// was before (prev) and after (cur). prev is nil for an object seen for
// the first time; gone is prev stamped with the event's position, what a
// DELETED event carries.
type entry struct {
	pos       int64
	kind      int
	size      int64 // what the entry's objects hold in memory (entrySize), renderings aside
	prev, cur *Object
	gone      *Object
}

// ring holds the most recent entries, oldest first, in a fixed array.
type ring struct {
	buf   []entry
	start int   // index of the oldest entry
	n     int   // number of entries held
	bytes int64 // the entries' sizes added up
}

func newRing(size int) ring { return ring{buf: make([]entry, size)} }

// push adds e as the newest entry. When the ring is full the oldest entry
// is dropped and returned with evicted true.
func (r *ring) push(e entry) (old entry, evicted bool) {
	if len(r.buf) == 0 {
		return e, true
	}
	r.bytes += e.size
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = e
		r.n++
		return entry{}, false
	}
	old = r.buf[r.start]
	r.bytes -= old.size
	r.buf[r.start] = e
	r.start = (r.start + 1) % len(r.buf)
	return old, true
}

// pop drops the oldest entry, of at least one, and returns it.
func (r *ring) pop() entry {
	old := r.buf[r.start]
	r.buf[r.start] = entry{} // let the objects go
	r.bytes -= old.size
	r.start = (r.start + 1) % len(r.buf)
	r.n--
	return old
}

func (r *ring) at(i int) *entry { return &r.buf[(r.start+i)%len(r.buf)] }

// after appends to dst up to max entries with positions above pos, oldest
// first.
func (r *ring) after(dst []entry, pos int64, max int) []entry {
	i := sort.Search(r.n, func(i int) bool { return r.at(i).pos > pos })
	for ; i < r.n && len(dst) < max; i++ {
		dst = append(dst, *r.at(i))
	}
	return dst
}

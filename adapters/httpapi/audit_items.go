package httpapi

import (
	"net/http"
	"sync"

	"herd/events"
)

// auditItems holds a page's items as they are encoded, in chunks taken
// from a pool and given back once the page is written: a page of 10,000
// events (3.5 MB) is neither one buffer grown by copying nor 3.5 MB of
// new memory for each list.
type auditItems struct {
	full [][]byte
	cur  []byte
	n    int
}

// auditChunk is the size of a chunk; an item that does not fit in what
// is left of one starts the next (and one larger than a chunk grows it).
const auditChunk = 64 << 10

var auditChunks = sync.Pool{New: func() any { b := make([]byte, 0, auditChunk); return &b }}

// room is a chunk with room for about an item more.
func (it *auditItems) room() []byte {
	if it.cur != nil && cap(it.cur)-len(it.cur) >= 1024 {
		return it.cur
	}
	if it.cur != nil {
		it.full = append(it.full, it.cur)
	}
	it.cur = (*auditChunks.Get().(*[]byte))[:0]
	return it.cur
}

// add appends rec's item (appendAuditEvent), after a comma but for the
// first.
func (it *auditItems) add(rec *events.Record) error {
	b := it.room()
	if it.n > 0 {
		b = append(b, ',')
	}
	b, err := appendAuditEvent(b, rec)
	if err != nil {
		return err
	}
	it.cur = b
	it.n++
	return nil
}

// writeTo writes the items to w, in order; the first error ends it.
func (it *auditItems) writeTo(w http.ResponseWriter) error {
	for _, b := range it.full {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if len(it.cur) > 0 {
		_, err := w.Write(it.cur)
		return err
	}
	return nil
}

// size is the items' length in bytes, as writeTo writes them.
func (it *auditItems) size() int {
	n := len(it.cur)
	for _, b := range it.full {
		n += len(b)
	}
	return n
}

// release gives the chunks back to the pool; it is empty after.
func (it *auditItems) release() {
	for _, b := range append(it.full, it.cur) {
		if b != nil && cap(b) == auditChunk {
			b = b[:0]
			auditChunks.Put(&b)
		}
	}
	*it = auditItems{}
}

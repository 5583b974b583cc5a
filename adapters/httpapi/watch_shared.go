package httpapi

import (
	goruntime "runtime"
	"sync"
	"weak"

	"herd/projections/watch"
)

// sharedEncodings holds the protobuf and CBOR encodings of the watch
// hub's objects, each rendered by the first watcher that sends it and
// shared by every other, as the hub shares each object's JSON. An entry
// lives as long as its object: when the hub lets go of an object and the
// garbage collector takes it, its encodings go too.
type sharedEncodings struct {
	mu sync.Mutex
	m  map[encodingKey]*encodingEntry
}

// encodingKey is one object in one media type. The weak pointer keeps
// the map from holding the object alive.
type encodingKey struct {
	obj       weak.Pointer[watch.Object]
	mediaType string
}

// encodingEntry is one encoding, rendered once.
type encodingEntry struct {
	once sync.Once
	data []byte
	err  error
}

// get returns o's encoding in mediaType, rendering it with render the
// first time. The bytes are shared and must not be changed.
func (c *sharedEncodings) get(o *watch.Object, mediaType string, render func() ([]byte, error)) ([]byte, error) {
	k := encodingKey{obj: weak.Make(o), mediaType: mediaType}
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[encodingKey]*encodingEntry)
	}
	e, ok := c.m[k]
	if !ok {
		e = &encodingEntry{}
		c.m[k] = e
		goruntime.AddCleanup(o, c.drop, k)
	}
	c.mu.Unlock()
	e.once.Do(func() { e.data, e.err = render() })
	return e.data, e.err
}

// drop forgets the encoding of an object the garbage collector took.
func (c *sharedEncodings) drop(k encodingKey) {
	c.mu.Lock()
	delete(c.m, k)
	c.mu.Unlock()
}

// len is how many encodings are held.
func (c *sharedEncodings) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

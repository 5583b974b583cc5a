package watch

import (
	"context"
	"maps"
	"slices"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/events"
)

// retryInterval is how long the hub waits after a failed read of the log
// before trying again: long enough not to hammer a struggling database.
const retryInterval = time.Second

// follow reads the log until ctx ends: at once when a commit is
// announced in-process, and every PollInterval only to catch commits it
// was not told of. Its reads are plain reads outside any transaction, so
// an idle hub never takes the write lock.
func (h *Hub) follow(ctx context.Context) {
	defer h.done.Done()
	timer := time.NewTimer(h.cfg.PollInterval)
	defer timer.Stop()
	for {
		// Taken before the read: a commit after it closes the channel, so
		// the wait below cannot miss it.
		_, committed := h.store.CommitSignal()
		n, err := h.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		h.rebase()
		h.snapshotChanged()
		wait := h.cfg.PollInterval
		switch {
		case err != nil:
			h.log.Error("watch: reading the log", zap.Int64("position", h.pos), zap.Error(err))
			wait, committed = retryInterval, nil
		case n == h.cfg.BatchSize:
			continue // there is more to read
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-committed:
		case <-timer.C:
		}
	}
}

// tickBookmarks wakes the watchers that asked for bookmarks every
// BookmarkInterval of herd's clock.
func (h *Hub) tickBookmarks(ctx context.Context, t clock.Ticker) {
	defer h.done.Done()
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			h.mu.Lock()
			close(h.bookmark)
			h.bookmark = make(chan struct{})
			h.mu.Unlock()
		}
	}
}

// poll reads the next batch of the log, folds it and publishes it. Only
// the goroutine that follows the log (or Start, before it runs) calls it,
// so it reads h.pos and h.latest without the lock: nobody else writes
// them.
func (h *Hub) poll(ctx context.Context) (int, error) {
	h.reads.Add(1)
	recs, err := h.store.ReadAfter(ctx, h.pos, h.cfg.BatchSize)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	fresh := make(map[string]*Object)
	entries := make([]entry, 0, len(recs))
	var appeared []appearance
	for _, rec := range recs {
		k := h.kindOf(rec.Stream)
		if k < 0 || rec.Position <= h.kindHead[k] {
			continue
		}
		prev, ok := fresh[rec.Stream]
		if !ok {
			prev = h.latest[rec.Stream]
		}
		cur := h.fold(k, prev, rec)
		fresh[rec.Stream] = cur
		if cur.Exists && !h.index[k].has(rec.Stream) {
			appeared = append(appeared, appearance{kind: k, stream: rec.Stream, key: cur.Meta.Key})
		}
		h.track(rec, cur)
		if e, ok := newEntry(k, prev, cur, rec.Position); ok {
			e.size = entrySize(rec, cur)
			entries = append(entries, e)
		}
	}
	h.mu.Lock()
	for stream, o := range fresh {
		h.latest[stream] = o
	}
	for _, a := range appeared {
		h.index[a.kind].add(a.stream, a.key)
	}
	for _, e := range entries {
		if old, evicted := h.ring.push(e); evicted {
			h.floor = old.pos
		}
	}
	if pos, dropped := h.ring.shed(h.cfg.CacheBytes); dropped {
		h.floor = pos
	}
	h.metrics.setCache(h.ring.n, h.ring.bytes)
	h.pos = recs[len(recs)-1].Position
	close(h.notify)
	h.notify = make(chan struct{})
	h.mu.Unlock()
	h.metrics.setPosition(recs[len(recs)-1].Position)
	return len(recs), nil
}

// appearance is an object seen to exist for the first time, for its
// kind's key index.
type appearance struct {
	kind        int
	stream, key string
}

// maxBases is how many bases the hub keeps. Taken every History/2, three
// reach back at least History: every resourceVersion a watch or a list
// may still use folds forward from one of them.
const maxBases = 3

// base is every object's state as of known log positions, one per kind.
type base struct {
	at   []int64
	objs map[string]*Object
}

// rebase takes a new base every History/2 of herd's clock. Objects are
// shared, not copied: a base costs a map of pointers, plus the old states
// of objects that change afterwards.
func (h *Hub) rebase() {
	if h.clock.Since(h.based) < h.cfg.History/2 {
		return
	}
	at := make([]int64, len(h.kinds))
	for i := range at {
		at[i] = h.pos
	}
	b := base{at: at, objs: maps.Clone(h.latest)} // only this goroutine writes latest
	h.mu.Lock()
	h.bases = append(h.bases, b)
	if len(h.bases) > maxBases {
		h.bases = slices.Delete(h.bases, 0, len(h.bases)-maxBases)
	}
	h.mu.Unlock()
	h.based = h.clock.Now()
}

// fold applies rec to prev; an event that cannot be folded (written by a
// newer herd, say) leaves the object as it was, and is logged.
func (h *Hub) fold(k int, prev *Object, rec events.Record) *Object {
	cur, err := h.kinds[k].fold(prev, rec)
	if err != nil {
		h.metrics.foldError()
		h.log.Warn("watch: event left out of its object", zap.String("stream", rec.Stream),
			zap.Int64("position", rec.Position), zap.Error(err))
	}
	return cur
}

// newEntry is the entry for an event that took an object from prev to
// cur; ok is false when clients see the object neither before nor after.
// entryOverhead is what an entry holds beyond its event's bytes: the
// objects' structs, maps and labels, roughly, for an object whose event
// carried little (a heartbeat).
const entryOverhead = 1 << 10

// entrySize is how much memory the entry of rec holds, roughly: what the
// event brought in (its payload becomes the new object's state, and the
// object's rendering to clients is about as large again), the labels the
// new object's Meta may hold a copy of (a heartbeat is small, but
// a node that registered with a megabyte of labels carries them into
// every entry), and the fixed overhead. What a client sends is what it
// costs; an object's unchanged parts are shared with its previous state.
func entrySize(rec events.Record, cur *Object) int64 {
	size := 2*int64(len(rec.Payload)) + entryOverhead
	if cur != nil {
		size += 2 * mapBytes(cur.Meta.Labels)
	}
	return size
}

// mapBytes is the bytes of m's keys and values.
func mapBytes(m map[string]string) int64 {
	var n int64
	for k, v := range m {
		n += int64(len(k) + len(v))
	}
	return n
}

func newEntry(k int, prev, cur *Object, pos int64) (entry, bool) {
	e := entry{pos: pos, kind: k, prev: prev, cur: cur}
	if prev != nil && prev.Exists {
		e.gone = prev.at(pos)
	} else if !cur.Exists {
		return entry{}, false
	}
	return e, true
}

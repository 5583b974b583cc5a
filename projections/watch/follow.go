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
		_, more, err := h.poll(ctx)
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
		case more:
			continue
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-committed:
		case <-h.offers.wake:
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
// them. It returns how many events it read, and whether there may be
// more to read at once.
func (h *Hub) poll(ctx context.Context) (n int, more bool, err error) {
	h.reads.Add(1)
	recs, more, err := readWrites(ctx, h.store, h.pos, h.cfg.BatchSize)
	if err != nil || len(recs) == 0 {
		return 0, false, err
	}

	offered := h.offers.take()
	defer func() { h.offers.put(offered, h.pos) }()
	var ready int
	if offered, ready = h.offers.settled(recs, offered); ready < len(recs) {
		// The rest waits for the writer's states (adopt.go); the writer
		// wakes the hub once they are offered.
		recs, more = recs[:ready], false
		if ready == 0 {
			return 0, false, nil
		}
	}
	fresh := make(map[string]*Object)
	entries := make([]entry, 0, len(recs))
	var (
		appeared []appearance
		before   *Object // the object before the write being folded
	)
	for i, rec := range recs {
		k := h.kindOf(rec.Stream)
		if k < 0 || rec.Position <= h.kindHead[k] {
			continue
		}
		prev, ok := fresh[rec.Stream]
		if !ok {
			prev = h.latest[rec.Stream]
		}
		if i == 0 || !sameWrite(recs[i-1], rec) {
			before = prev
		}
		cur, ok := adopted(h.kinds[k], offered, prev, rec)
		if ok {
			h.offers.taken.Add(1)
			h.metrics.adoptedOne()
		} else {
			cur = h.fold(k, prev, rec)
		}
		fresh[rec.Stream] = cur
		if cur.Exists && !h.index[k].has(rec.Stream) {
			appeared = append(appeared, appearance{kind: k, stream: rec.Stream, key: cur.Meta.Key})
		}
		h.track(rec, cur)
		if i+1 < len(recs) && sameWrite(rec, recs[i+1]) {
			continue // the write's object version is its last event's
		}
		if e, ok := newEntry(k, before, cur, rec.Position); ok {
			e.goneAs(prev)
			e.size = entrySize(e)
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
		e.account(&h.rendered)
		if old, evicted := h.ring.push(e); evicted {
			h.floor = old.pos
			h.release(old)
		}
	}
	for h.ring.bytes+h.rendered.Load() > h.cfg.CacheBytes && h.ring.n > 1 {
		old := h.ring.pop()
		h.floor = old.pos
		h.release(old)
	}
	h.metrics.setCache(h.ring.n, h.ring.bytes+h.rendered.Load())
	h.pos = recs[len(recs)-1].Position
	close(h.notify)
	h.notify = make(chan struct{})
	h.mu.Unlock()
	h.metrics.setPosition(h.pos)
	return len(recs), more, nil
}

// release stops counting the renderings of an entry the ring dropped.
func (h *Hub) release(e entry) {
	for _, o := range []*Object{e.cur, e.gone} {
		if o != nil {
			o.unaccount()
		}
	}
}

// sameWrite reports whether next was appended by the same write as rec:
// the next event of the same stream, which the log marks as continuing
// rec's write. The events one command appends to its object (a heartbeat
// and every condition it flipped) are one version of the object for
// watchers, as one etcd write is one object version in kube-apiserver: a
// report that flips a thousand conditions is one version held, not a
// thousand. Two writes are never one, however alike: under a clock that
// stands still, a change and a deletion by the same hand are two
// versions, whether the hub reads them in one batch or in two.
func sameWrite(rec, next events.Record) bool {
	return next.Continues && next.Stream == rec.Stream && next.Version == rec.Version+1 && next.Position == rec.Position+1
}

// appearance is an object seen to exist for the first time, for its
// kind's key index.
type appearance struct {
	kind        int
	stream, key string
}

// maxBases is how many bases the hub keeps: taken every BaseInterval,
// enough that the oldest is at least History old, so that every
// resourceVersion a watch or a list may still use folds forward from one
// of them. Each base beyond the newest holds an older version of every
// object that changed since it, so no more are kept than that.
func (c Config) maxBases() int {
	return 1 + int((c.History+c.BaseInterval-1)/c.BaseInterval)
}

// base is every object's state as of known log positions, one per kind.
type base struct {
	at   []int64
	objs map[string]*Object
}

// rebase takes a new base every BaseInterval of herd's clock. Objects are
// shared, not copied: a base costs a map of pointers, plus the old states
// of objects that change afterwards.
func (h *Hub) rebase() {
	if h.clock.Since(h.based) < h.cfg.BaseInterval {
		return
	}
	at := make([]int64, len(h.kinds))
	for i := range at {
		at[i] = h.pos
	}
	b := base{at: at, objs: maps.Clone(h.latest)} // only this goroutine writes latest
	h.mu.Lock()
	h.bases = append(h.bases, b)
	if keep := h.cfg.maxBases(); len(h.bases) > keep {
		h.bases = slices.Delete(h.bases, 0, len(h.bases)-keep)
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
// goneAs makes a DELETED event carry last, the object as it was just
// before the event that removed it, when one write changed it and then
// removed it (a deletion without grace: its deletion timestamp, then its
// end): the last state it had, as kube-apiserver's DELETED carries.
func (e *entry) goneAs(last *Object) {
	if e.gone != nil && last != nil && last.Exists {
		e.gone = last.at(e.pos)
	}
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

// readWrites reads up to limit events after pos without cutting a write
// in two: a write the batch's end cuts is left for the next read, or,
// when it fills the batch, read to its end (a write is committed whole,
// and one report's events are bounded by what a report may carry). more
// says whether the log may hold more after what it returns.
func readWrites(ctx context.Context, log Log, pos int64, limit int) (recs []events.Record, more bool, err error) {
	recs, err = log.ReadAfter(ctx, pos, limit)
	if err != nil || len(recs) < limit {
		return recs, false, err
	}
	start := len(recs) - 1 // where the last write starts
	for start > 0 && sameWrite(recs[start-1], recs[start]) {
		start--
	}
	if start > 0 {
		return recs[:start], true, nil
	}
	for {
		next, err := log.ReadAfter(ctx, recs[len(recs)-1].Position, limit)
		if err != nil {
			return nil, false, err
		}
		for _, rec := range next {
			if !sameWrite(recs[len(recs)-1], rec) {
				return recs, true, nil
			}
			recs = append(recs, rec)
		}
		if len(next) < limit {
			return recs, false, nil
		}
	}
}

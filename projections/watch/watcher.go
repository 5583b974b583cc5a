package watch

import (
	"context"
)

// EventType says what happened to an object, in Kubernetes' words.
type EventType string

// The event types a watcher sees.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one change a watcher sees: the object after it, or, for
// Deleted, the object's last state at the position that removed it.
type Event struct {
	Type   EventType
	Object *Object
}

// Request says what to watch and from where.
type Request struct {
	// Resource is a registered Kind's Resource.
	Resource string
	// From is the position to resume after: the watcher sees exactly the
	// events after it. Ignored when Initial.
	From int64
	// Initial starts the watch with every current object, as Watch's
	// initial objects, and continues from the position they are as of.
	Initial bool
	// NotOlderThan, with Initial, is the position the initial objects
	// must reflect at least; 0 takes whatever the hub has.
	NotOlderThan int64
	// Match selects objects; nil selects every one. An object that stops
	// matching is Deleted for the watcher, one that starts is Added.
	Match func(*Object) bool
}

// Watcher is one watch. One goroutine uses it: it calls Next until Next
// returns no events, then waits on Changed (and whatever else it waits
// for), and calls Close when done.
type Watcher struct {
	hub      *Hub
	kind     int
	match    func(*Object) bool
	cursor   int64
	attached bool
	changed  <-chan struct{}
	// history holds, while the watcher reads the log itself, every object
	// it has folded so far.
	history map[string]*Object
	buf     []entry
	closed  bool
}

// Watch opens a watch. With req.Initial it also returns every object that
// exists now (and matches), in key order: the state the watch continues
// from. It fails with a *TooLargeError when the hub does not reach the
// position asked for within WaitForPosition, and with an *ExpiredError
// when req.From is older than the history kept.
func (h *Hub) Watch(ctx context.Context, req Request) (*Watcher, []*Object, error) {
	k, err := h.kindIndex(req.Resource)
	if err != nil {
		return nil, nil, err
	}
	if err := h.checkReady(); err != nil {
		return nil, nil, err
	}
	w := &Watcher{hub: h, kind: k, match: req.Match}
	if req.Initial {
		if err := h.waitFor(ctx, req.NotOlderThan); err != nil {
			return nil, nil, err
		}
		var initial []*Object
		h.mu.Lock() // the key index may be built now
		for _, e := range h.index[k].inOrder() {
			if o := h.latest[e.stream]; o.Exists && w.matches(o) {
				initial = append(initial, o)
			}
		}
		w.cursor, w.attached, w.changed = h.pos, true, h.notify
		h.mu.Unlock()
		h.metrics.addWatchers(1)
		return w, initial, nil
	}
	if err := h.waitFor(ctx, req.From); err != nil {
		return nil, nil, err
	}
	if err := h.checkRetained(ctx, req.From); err != nil {
		return nil, nil, err
	}
	w.cursor = req.From
	h.mu.RLock()
	w.attached, w.changed = req.From >= h.floor, h.notify
	h.mu.RUnlock()
	if !w.attached {
		w.history = map[string]*Object{}
		w.changed = closedChan
	}
	h.metrics.addWatchers(1)
	return w, nil, nil
}

func (h *Hub) checkReady() error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	switch {
	case h.stopped:
		return ErrClosed
	case !h.ready:
		return ErrNotStarted
	}
	return nil
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Position is the log position up to which the watcher has seen every
// event: a bookmark's resourceVersion, and where to resume.
func (w *Watcher) Position() int64 { return w.cursor }

// Changed is closed when Next may have more to return.
func (w *Watcher) Changed() <-chan struct{} { return w.changed }

// Close releases the watcher.
func (w *Watcher) Close() {
	if !w.closed {
		w.closed = true
		w.hub.metrics.addWatchers(-1)
	}
}

// Next returns the events after the watcher's position that are ready,
// at most BatchSize of the log's events' worth, and moves past them; none
// when there is nothing new. It fails with a *TooSlowError when the hub
// has dropped events the watcher had yet to read, and with ErrClosed once
// the hub has stopped.
func (w *Watcher) Next(ctx context.Context) ([]Event, error) {
	if !w.attached {
		return w.nextFromLog(ctx)
	}
	h := w.hub
	h.mu.RLock()
	if h.stopped {
		h.mu.RUnlock()
		return nil, ErrClosed
	}
	if w.cursor < h.floor {
		h.mu.RUnlock()
		h.metrics.cutOffOne()
		return nil, &TooSlowError{Resource: h.kinds[w.kind].name(), Position: w.cursor, Behind: h.ring.n}
	}
	w.buf = h.ring.after(w.buf[:0], w.cursor, h.cfg.BatchSize)
	if len(w.buf) == h.cfg.BatchSize {
		w.cursor = w.buf[len(w.buf)-1].pos
	} else {
		w.cursor = max(w.cursor, h.pos)
	}
	w.changed = h.notify
	h.mu.RUnlock()

	var out []Event
	for i := range w.buf {
		if ev, ok := w.event(&w.buf[i]); ok {
			out = append(out, ev)
		}
		w.buf[i] = entry{} // let the objects go
	}
	return out, nil
}

// nextFromLog reads the next stretch of the log itself, until the watcher
// reaches what the hub holds in memory and switches over to it. Both fold
// the same events the same way, so the switch neither repeats nor skips.
func (w *Watcher) nextFromLog(ctx context.Context) ([]Event, error) {
	h := w.hub
	h.mu.RLock()
	stopped, floor := h.stopped, h.floor
	h.mu.RUnlock()
	if stopped {
		return nil, ErrClosed
	}
	if w.cursor >= floor {
		w.attached, w.history = true, nil
		return w.Next(ctx)
	}
	recs, _, err := readWrites(ctx, h.store, w.cursor, h.cfg.BatchSize)
	if err != nil {
		return nil, err
	}
	h.metrics.readHistory(len(recs))
	if len(recs) == 0 {
		// Nothing was committed after the cursor, and the hub has read
		// up to floor at least: nothing lies in between.
		w.cursor = floor
		return nil, nil
	}
	var (
		out    []Event
		before *Object
	)
	for i, rec := range recs {
		w.cursor = rec.Position
		if h.kindOf(rec.Stream) != w.kind {
			continue
		}
		prev, ok := w.history[rec.Stream]
		if !ok {
			if prev, err = h.stateAt(ctx, w.kind, rec.Stream, rec.Position-1); err != nil {
				return nil, err
			}
		}
		if i == 0 || !sameWrite(recs[i-1], rec) {
			before = prev
		}
		cur := h.fold(w.kind, prev, rec)
		w.history[rec.Stream] = cur
		if i+1 < len(recs) && sameWrite(rec, recs[i+1]) {
			continue // one write, one version, as in the hub
		}
		if e, ok := newEntry(w.kind, before, cur, rec.Position); ok {
			e.goneAs(prev)
			if ev, ok := w.event(&e); ok {
				out = append(out, ev)
			}
		}
	}
	return out, nil
}

// event is what the watcher sees of e, if anything, in the manner of
// kube-apiserver's watch cache: an object that starts matching is Added,
// one that stops is Deleted with its last state at the event's position.
func (w *Watcher) event(e *entry) (Event, bool) {
	if e.kind != w.kind {
		return Event{}, false
	}
	was := e.prev != nil && e.prev.Exists && w.matches(e.prev)
	is := e.cur != nil && e.cur.Exists && w.matches(e.cur)
	switch {
	case !was && is:
		return Event{Type: Added, Object: e.cur}, true
	case was && is:
		return Event{Type: Modified, Object: e.cur}, true
	case was && !is:
		return Event{Type: Deleted, Object: e.gone}, true
	}
	return Event{}, false
}

func (w *Watcher) matches(o *Object) bool { return w.match == nil || w.match(o) }

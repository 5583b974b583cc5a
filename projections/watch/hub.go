package watch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/events"
)

// retryInterval is how long the hub waits after a failed read of the log
// before trying again: long enough not to hammer a struggling database.
const retryInterval = time.Second

// Hub follows the log once for every watcher. Register every Kind, then
// Start it; Stop ends every watch.
type Hub struct {
	store   *events.Store
	cfg     Config
	clock   clock.WithTicker
	log     *zap.Logger
	metrics *Metrics

	kinds []resource // fixed once started
	// kindHead is, per kind, the position of the view snapshot the hub
	// started from: events up to it are in the snapshot already. Read and
	// written only by the goroutine that polls.
	kindHead []int64

	mu       sync.RWMutex
	started  bool // Start was called
	ready    bool // Start has caught up with the log
	stopped  bool
	pos      int64              // the log position folded up to
	floor    int64              // the ring holds every entry after it
	latest   map[string]*Object // every object by stream, as of pos
	ring     ring
	notify   chan struct{} // closed when pos moves or the hub stops
	bookmark chan struct{} // closed at every bookmark tick
	// bases are copies of latest taken now and then, oldest first: history
	// folds an object forward from the newest one before the position it
	// wants, rather than from the first event of its stream.
	bases []base
	// based is when the newest base was taken, by herd's clock; read and
	// written only by the goroutine that polls.
	based time.Time

	stopOnce sync.Once
	cancel   context.CancelFunc
	done     sync.WaitGroup
}

// NewHub returns a hub over store, timing bookmarks and history by clk.
// metrics may be nil.
func NewHub(store *events.Store, cfg Config, clk clock.WithTicker, log *zap.Logger, metrics *Metrics) (*Hub, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Hub{
		store: store, cfg: cfg, clock: clk, log: log, metrics: metrics,
		latest:   map[string]*Object{},
		ring:     newRing(cfg.CacheSize),
		notify:   make(chan struct{}),
		bookmark: make(chan struct{}),
	}, nil
}

// Register adds a resource. It must be called before Start.
func Register[S any](h *Hub, k *Kind[S]) error {
	if err := k.validate(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.started {
		return fmt.Errorf("watch: register %s: the hub has started", k.Resource)
	}
	for _, other := range h.kinds {
		switch {
		case other.name() == k.Resource:
			return fmt.Errorf("watch: register %s: registered twice", k.Resource)
		case strings.HasPrefix(other.prefix(), k.Prefix) || strings.HasPrefix(k.Prefix, other.prefix()):
			return fmt.Errorf("watch: register %s: stream prefix %q overlaps %q of %s", k.Resource, k.Prefix, other.prefix(), other.name())
		}
	}
	h.kinds = append(h.kinds, k)
	return nil
}

// Start reads every resource's view, catches up with the log and starts
// following it. ctx bounds the start only.
func (h *Hub) Start(ctx context.Context) error {
	h.mu.Lock()
	if h.started {
		h.mu.Unlock()
		return errors.New("watch: the hub has started already")
	}
	h.started = true
	h.mu.Unlock()

	head, err := h.store.Head(ctx, h.store.DB())
	if err != nil {
		return fmt.Errorf("watch: start: %w", err)
	}
	// Each view is read at its own head; the hub starts from the oldest
	// and skips, per kind, what its snapshot holds already.
	pos, floor := head, head
	h.kindHead = make([]int64, len(h.kinds))
	for i, k := range h.kinds {
		objs, _, at, err := k.rows(ctx, "", 0)
		if err != nil {
			return fmt.Errorf("watch: start: %w", err)
		}
		h.mu.Lock()
		for _, o := range objs {
			h.latest[o.Stream] = o
		}
		h.mu.Unlock()
		h.kindHead[i] = at
		pos, floor = min(pos, at), max(floor, at)
	}
	h.mu.Lock()
	h.pos, h.floor = pos, floor
	// The views' snapshot is the first base, each kind as of its own view.
	h.bases = []base{{at: slices.Clone(h.kindHead), objs: maps.Clone(h.latest)}}
	h.based = h.clock.Now()
	h.mu.Unlock()
	for h.pos < floor {
		n, err := h.poll(ctx)
		if err != nil {
			return fmt.Errorf("watch: start: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("watch: start: the log ends at %d, before its views' position %d", h.pos, floor)
		}
	}
	h.mu.Lock()
	h.ready = true
	h.mu.Unlock()
	h.metrics.setPosition(h.pos)

	runCtx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	// The ticker exists before Start returns, so that no tick of herd's
	// clock after it is missed.
	ticker := h.clock.NewTicker(h.cfg.BookmarkInterval)
	h.done.Add(2)
	go h.follow(runCtx)
	go h.tickBookmarks(runCtx, ticker)
	return nil
}

// Stop stops following the log and ends every watch: their Next returns
// ErrClosed. Stopping twice, or a hub never started, is fine.
func (h *Hub) Stop() {
	h.stopOnce.Do(func() {
		if h.cancel != nil {
			h.cancel()
		}
		h.done.Wait()
		h.mu.Lock()
		h.stopped = true
		close(h.notify)
		h.mu.Unlock()
	})
}

// follow polls the log until ctx ends.
func (h *Hub) follow(ctx context.Context) {
	defer h.done.Done()
	timer := time.NewTimer(h.cfg.PollInterval)
	defer timer.Stop()
	for {
		n, err := h.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		h.rebase()
		wait := h.cfg.PollInterval
		switch {
		case err != nil:
			h.log.Error("watch: reading the log", zap.Int64("position", h.pos), zap.Error(err))
			wait = retryInterval
		case n == h.cfg.BatchSize:
			continue // there is more to read
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
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
	recs, err := h.store.ReadAfter(ctx, h.store.DB(), h.pos, h.cfg.BatchSize)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	fresh := make(map[string]*Object)
	entries := make([]entry, 0, len(recs))
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
		if e, ok := newEntry(k, prev, cur, rec.Position); ok {
			entries = append(entries, e)
		}
	}
	h.mu.Lock()
	for stream, o := range fresh {
		h.latest[stream] = o
	}
	for _, e := range entries {
		if old, evicted := h.ring.push(e); evicted {
			h.floor = old.pos
		}
	}
	h.pos = recs[len(recs)-1].Position
	close(h.notify)
	h.notify = make(chan struct{})
	h.mu.Unlock()
	h.metrics.setPosition(recs[len(recs)-1].Position)
	return len(recs), nil
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
func newEntry(k int, prev, cur *Object, pos int64) (entry, bool) {
	e := entry{pos: pos, kind: k, prev: prev, cur: cur}
	if prev != nil && prev.Exists {
		e.gone = prev.at(pos)
	} else if !cur.Exists {
		return entry{}, false
	}
	return e, true
}

// kindOf is the index of the kind whose streams include stream, or -1.
func (h *Hub) kindOf(stream string) int {
	for i, k := range h.kinds {
		if strings.HasPrefix(stream, k.prefix()) {
			return i
		}
	}
	return -1
}

func (h *Hub) kindIndex(resource string) (int, error) {
	for i, k := range h.kinds {
		if k.name() == resource {
			return i, nil
		}
	}
	return -1, fmt.Errorf("%w %q", ErrUnknownResource, resource)
}

// Position is the log position the hub has read up to.
func (h *Hub) Position() int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.pos
}

// Bookmarks returns a channel closed at the next bookmark tick.
func (h *Hub) Bookmarks() <-chan struct{} {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.bookmark
}

// NewTimer is a timer on herd's clock, for watches that end after a while.
func (h *Hub) NewTimer(d time.Duration) clock.Timer { return h.clock.NewTimer(d) }

// waitFor waits until the hub has read the log up to pos, for at most
// WaitForPosition.
func (h *Hub) waitFor(ctx context.Context, pos int64) error {
	timer := time.NewTimer(h.cfg.WaitForPosition)
	defer timer.Stop()
	for {
		h.mu.RLock()
		cur, ch, stopped := h.pos, h.notify, h.stopped
		h.mu.RUnlock()
		switch {
		case stopped:
			return ErrClosed
		case pos <= cur:
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return &TooLargeError{Position: pos, Current: cur}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// checkRetained fails with an *ExpiredError when pos is older than the
// history kept: when the first event after it was recorded more than
// History ago.
func (h *Hub) checkRetained(ctx context.Context, pos int64) error {
	next, err := h.store.ReadAfter(ctx, h.store.DB(), pos, 1)
	if err != nil {
		return fmt.Errorf("watch: history after %d: %w", pos, err)
	}
	if len(next) == 1 && next[0].RecordedAt.Before(h.clock.Now().Add(-h.cfg.History)) {
		return &ExpiredError{Position: pos, History: h.cfg.History}
	}
	return nil
}

// stateAt is the object of stream as it stood at log position pos: the
// newest base at or before pos, folded forward with the stream's events
// up to pos (or the stream folded from its first event, when pos is older
// than every base); nil when the stream had no event by then.
func (h *Hub) stateAt(ctx context.Context, k int, stream string, pos int64) (*Object, error) {
	var (
		o    *Object
		from int64
	)
	h.mu.RLock()
	for i := len(h.bases) - 1; i >= 0; i-- {
		if b := h.bases[i]; b.at[k] <= pos {
			o, from = b.objs[stream], b.at[k]
			break
		}
	}
	h.mu.RUnlock()
	recs, err := h.store.ReadStreamRange(ctx, h.store.DB(), stream, from, pos)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	h.metrics.readHistory(len(recs))
	for _, rec := range recs {
		o = h.fold(k, o, rec)
	}
	return o, nil
}

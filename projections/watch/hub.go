package watch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/events"
)

// Hub follows the log once for every watcher. Register every Kind, then
// Start it; Stop ends every watch.
type Hub struct {
	store   Log
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
	index    []keyIndex         // per kind, its streams in key order (keys.go)
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
	// tracks, snapshotted and snapQueue take snapshots (snapshot.go);
	// tracks and snapshotted are the polling goroutine's alone.
	tracks      map[string]*snapTrack
	snapshotted time.Time
	snapQueue   chan snapJob

	// rendered is the bytes of the encoded forms of the objects the ring
	// holds, made when clients first ask for them (Object.Rendered).
	rendered atomic.Int64

	// reads counts the hub's reads of the log, for tests.
	reads atomic.Int64

	// offers are the writer's states for events the hub has not read
	// yet (adopt.go).
	offers offers

	stopOnce sync.Once
	cancel   context.CancelFunc
	done     sync.WaitGroup
}

// Log is what the hub reads of the event log: the storage port's reads,
// its commit signal and how far it has been compacted.
type Log interface {
	Head(ctx context.Context) (int64, error)
	ReadAfter(ctx context.Context, position int64, limit int) ([]events.Record, error)
	ReadStreamRange(ctx context.Context, stream string, after, upTo int64) ([]events.Record, error)
	ReadFromSnapshot(ctx context.Context, stream string, upTo int64) (*events.Snapshot, []events.Record, error)
	SaveSnapshots(ctx context.Context, snaps []events.Snapshot) error
	CommitSignal() (int64, <-chan struct{})
	Compaction() events.Compaction
}

var _ Log = events.Log(nil)

// NewHub returns a hub over the log store, timing bookmarks and history
// by clk. metrics may be nil.
func NewHub(store Log, cfg Config, clk clock.WithTicker, log *zap.Logger, metrics *Metrics) (*Hub, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Hub{
		store: store, cfg: cfg, clock: clk, log: log, metrics: metrics,
		latest:    map[string]*Object{},
		ring:      newRing(cfg.CacheSize),
		notify:    make(chan struct{}),
		bookmark:  make(chan struct{}),
		tracks:    map[string]*snapTrack{},
		snapQueue: make(chan snapJob, snapshotQueue),
		offers:    offers{wake: make(chan struct{}, 1)},
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

	head, err := h.store.Head(ctx)
	if err != nil {
		return fmt.Errorf("watch: start: %w", err)
	}
	// Each view is read at its own head; the hub starts from the oldest
	// and skips, per kind, what its snapshot holds already.
	pos, floor := head, head
	h.kindHead = make([]int64, len(h.kinds))
	h.mu.Lock()
	h.index = newKeyIndexes(len(h.kinds))
	h.mu.Unlock()
	for i, k := range h.kinds {
		objs, keys, at, err := k.rows(ctx, "", 0)
		if err != nil {
			return fmt.Errorf("watch: start: %w", err)
		}
		h.mu.Lock()
		for j, o := range objs {
			h.latest[o.Stream] = o
			h.index[i].add(o.Stream, keys[j])
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
	h.snapshotted = h.based
	h.mu.Unlock()
	if err := h.catchUp(ctx, floor); err != nil {
		return err
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
	h.done.Add(3)
	go h.follow(runCtx)
	go h.tickBookmarks(runCtx, ticker)
	go h.writeSnapshots(runCtx)
	return nil
}

// catchUp reads the log until the hub reaches floor, the newest of its
// views' positions. A read that finds nothing new is tried again, at
// growing intervals up to 100 ms, for up to StartWait: the views may be
// ahead of what this process's log reads show yet (PostgreSQL, another
// replica's commit). The wait is on the machine's clock, not herd's: it
// is about the database, and a fake clock would never end it.
func (h *Hub) catchUp(ctx context.Context, floor int64) error {
	deadline := time.Now().Add(h.cfg.StartWait)
	pause := time.Millisecond
	for h.pos < floor {
		n, _, err := h.poll(ctx)
		if err != nil {
			return fmt.Errorf("watch: start: %w", err)
		}
		if n > 0 {
			pause = time.Millisecond
			continue
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("watch: start: the log ends at %d, before its views' position %d, after waiting %s for it", h.pos, floor, h.cfg.StartWait)
		}
		t := time.NewTimer(min(pause, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("watch: start: waiting for the log to reach its views' position %d from %d: %w", floor, h.pos, ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
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

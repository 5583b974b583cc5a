package watch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// ListRequest says which objects to list, and as of when.
type ListRequest struct {
	// Resource is a registered Kind's Resource.
	Resource string
	// At is the log position to list as of; 0 lists the current state.
	// Every page of one listing passes the position its first page
	// returned, so that later pages show the same moment of the log.
	At int64
	// After continues a listing: only objects whose keys sort after it.
	After string
	// Prefix keeps the objects whose keys start with it, such as
	// "default/" for one namespace's pods. The kind's Rows must keep such
	// keys together, and start with them when asked for the rows after
	// Prefix.
	Prefix string
	// Limit caps the items returned; 0 returns all of them.
	Limit int
	// Match selects objects; nil selects every one.
	Match func(*Object) bool
	// Past lists the past: At may be any position, however long ago
	// (an exact list, herd's --at), each object folded from the log; only
	// a position before the log's compaction point is answered with
	// Thinned set, since heartbeats were deleted after it. Without Past,
	// a position older than the History kept is expired, as
	// kube-apiserver's compaction expires it.
	Past bool
}

// ListResult is one page of a listing.
type ListResult struct {
	// Items are the objects, in key order, each as it stood at
	// ResourceVersion.
	Items []*Object
	// ResourceVersion is the log position the page is as of.
	ResourceVersion int64
	// More is true when objects follow the last item; a next page asks
	// for them with After set to its key and At to ResourceVersion.
	More bool
	// Thinned, for a list of the past, is the log's compaction point when
	// ResourceVersion is before it: the heartbeats between were thinned by
	// the retention policy, so a node shows its last heartbeat the log
	// still holds, not the one it had then. 0 otherwise.
	Thinned int64
}

// List reads a page of a resource as it stood at one log position. It
// answers from the objects the hub keeps in memory once the hub has read
// the log up to that position (for a list of the current state, up to the
// head the log's store gives now, so a list sees every write acknowledged
// before it, on any replica); objects changed since are folded back from
// the hub's bases, a snapshot or the log, so a long listing stays
// consistent however busy the log is. When the hub does not reach the
// position within WaitForPosition, or has not started, the views answer
// instead. A position older than the history kept fails with an
// *ExpiredError, unless the request lists the past; one past the log's
// head with a *TooLargeError.
func (h *Hub) List(ctx context.Context, req ListRequest) (ListResult, error) {
	k, err := h.kindIndex(req.Resource)
	if err != nil {
		return ListResult{}, err
	}
	var thinned int64
	switch {
	case req.At > 0 && req.Past:
		if c := h.store.Compaction(); req.At < c.Through {
			thinned = c.Through
		}
	case req.At > 0:
		if err := h.checkRetained(ctx, req.At); err != nil {
			return ListResult{}, err
		}
	}
	res, ok, err := h.listMemory(ctx, k, req)
	if ok {
		h.metrics.listed("memory")
	} else if err == nil {
		h.metrics.listed("views")
		res, err = h.listRows(ctx, k, req)
	}
	res.Thinned = thinned
	return res, err
}

// listChunk is how many objects a list takes from memory under one hold
// of the hub's lock, so that a list of a large fleet does not hold back
// the follower for long.
const listChunk = 1024

// listMemory is List answered from memory; ok is false when the hub
// cannot answer (not started, or not at the position in time) and the
// views must.
func (h *Hub) listMemory(ctx context.Context, k int, req ListRequest) (ListResult, bool, error) {
	if h.checkReady() != nil {
		return ListResult{}, false, nil
	}
	rv := req.At
	if rv == 0 {
		head, err := h.store.Head(ctx)
		if err != nil {
			return ListResult{}, true, fmt.Errorf("watch: list %s: %w", req.Resource, err)
		}
		rv = head
	}
	if err := h.waitFor(ctx, rv); err != nil {
		if _, behind := errors.AsType[*TooLargeError](err); behind {
			return ListResult{}, false, nil
		}
		return ListResult{}, true, err
	}
	h.mu.Lock()
	if req.At == 0 {
		rv = h.pos // at least the head read above: no folding back
	}
	order := h.index[k].inOrder()
	h.mu.Unlock()

	res := ListResult{ResourceVersion: rv}
	after := req.startAfter()
	i, _ := slices.BinarySearchFunc(order, after, func(e keyed, key string) int { return compareKeys(e.key, key) })
	for i < len(order) && order[i].key == after {
		i++
	}
	objs := make([]*Object, 0, min(listChunk, len(order)-i))
	keys := make([]string, 0, cap(objs))
	for i < len(order) {
		objs, keys = objs[:0], keys[:0]
		h.mu.RLock()
		for ; i < len(order) && len(objs) < listChunk; i++ {
			if !strings.HasPrefix(order[i].key, req.Prefix) {
				break
			}
			objs = append(objs, h.latest[order[i].stream])
			keys = append(keys, order[i].key)
		}
		h.mu.RUnlock()
		if len(objs) == 0 {
			break // past the prefix's keys
		}
		if err := h.foldBack(ctx, k, objs, keys, req.Prefix, rv); err != nil {
			return ListResult{}, true, err
		}
		for _, o := range objs {
			if res.add(o, req) {
				return res, true, nil
			}
		}
	}
	return res, true, nil
}

// startAfter is the key the listing's objects come after: its After, or
// the start of its Prefix's keys.
func (req ListRequest) startAfter() string {
	if req.Prefix != "" && !strings.HasPrefix(req.After, req.Prefix) {
		return req.Prefix
	}
	return req.After
}

// add puts o on the page when it exists and matches, and is true once the
// page is full and o would have followed it (More is then set).
func (res *ListResult) add(o *Object, req ListRequest) bool {
	if o == nil || !o.Exists || (req.Match != nil && !req.Match(o)) {
		return false
	}
	if req.Limit > 0 && len(res.Items) == req.Limit {
		res.More = true
		return true
	}
	res.Items = append(res.Items, o)
	return false
}

// listRows is List answered from the views: each page of rows read from
// the view, the rows changed since the position folded back.
func (h *Hub) listRows(ctx context.Context, k int, req ListRequest) (ListResult, error) {
	// Read a page and one more, so that More is known; with no limit, the
	// whole view at once.
	batch := 0
	if req.Limit > 0 {
		batch = max(req.Limit+1, min(h.cfg.BatchSize, 4*req.Limit))
	}
	res := ListResult{ResourceVersion: req.At}
	after, first := req.startAfter(), true
	for {
		objs, keys, head, err := h.kinds[k].rows(ctx, after, batch)
		if err != nil {
			return ListResult{}, err
		}
		if first {
			first = false
			if res.ResourceVersion == 0 {
				res.ResourceVersion = head
			} else if res.ResourceVersion > head {
				return ListResult{}, &TooLargeError{Position: res.ResourceVersion, Current: head}
			}
		}
		if err := h.foldBack(ctx, k, objs, keys, req.Prefix, res.ResourceVersion); err != nil {
			return ListResult{}, err
		}
		for i, o := range objs {
			if !strings.HasPrefix(keys[i], req.Prefix) {
				return res, nil // past the prefix's keys
			}
			after = keys[i]
			if res.add(o, req) {
				return res, nil
			}
		}
		if batch == 0 || len(objs) < batch {
			return res, nil
		}
	}
}

// foldBack replaces each of objs (those whose keys have prefix) that
// changed after rv with its state at rv, folded from the hub's bases, a
// snapshot or the log, on every core: a list of the past folds every
// object of the fleet, each its own reads of the log.
func (h *Hub) foldBack(ctx context.Context, k int, objs []*Object, keys []string, prefix string, rv int64) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, o := range objs {
		if o.ResourceVersion <= rv || !strings.HasPrefix(keys[i], prefix) {
			continue
		}
		g.Go(func() error {
			was, err := h.stateAt(ctx, k, o.Stream, rv)
			objs[i] = was
			return err
		})
	}
	return g.Wait()
}

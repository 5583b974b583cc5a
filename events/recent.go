package events

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// recentReads shares the newest records of the log among the readers of
// one process. herd serve has two followers of the log's head (the
// reconcilers' dispatcher and the watch hub), each woken by the same
// commit: without it each would read, scan and decode every record. On
// SQLite a commit of this process hands the records it wrote to the
// window before it is announced (committed), so that the readers it
// wakes take them from memory and the database is read only to catch up:
// after a start, by a reader further behind than the window holds, and
// for another process's commits. Otherwise (on PostgreSQL, whose
// positions commit out of order across replicas) the first reader to
// read a stretch keeps it here and the other takes it from memory.
//
// It holds a window (lo, hi] of the log: every committed record after lo
// up to hi, in position order. That is exact because a log commits its
// positions in order (one writer on SQLite; on PostgreSQL the head row
// that hands out positions stays locked until commit), so a read's answer
// is every record in the range it covers and no later commit falls into
// it; and on SQLite a transaction holds the one write lock from its first
// append to its commit, so the records it commits are every record
// after the position before its first one up to its last. The window
// only moves forward: a read further back (a watch catching up, a list of
// the past) goes to the log and leaves it alone.
type recentReads struct {
	// tail is held by the reader reading what follows the window.
	tail     sync.Mutex
	mu       sync.Mutex
	lo, hi   int64
	recs     []Record // positions in (lo, hi], in order
	bytes    int64
	maxRecs  int
	maxBytes int64

	fromMemory, fromLog atomic.Int64
	handedOn            atomic.Int64
}

// The window's bounds: a few seconds of a busy fleet, and no more memory
// than a watch cache's worth of large objects.
const (
	recentMaxRecords = 4096
	recentMaxBytes   = 16 << 20
)

func newRecentReads() *recentReads {
	return &recentReads{maxRecs: recentMaxRecords, maxBytes: recentMaxBytes}
}

// readAfter answers ReadAfter(pos, limit) from the window as far as it
// reaches, and reads the rest from the log with read. Reads of what
// follows the window take turns: readers woken by one commit would
// otherwise all read it from the database at once. The second, once the
// first is done, takes what it brought from memory and then reads on
// from there itself (usually finding nothing), so that no commit made
// after it was called is missed.
//
// announced, when not nil, is the newest head the log's commits in this
// process announced (CommitSignal), whose records commit hands to the
// window first. A read that the window answered up to that head or past
// it goes no further: every commit announced before it is in its answer,
// the caller (which took the commit signal before reading, as followers
// do) is woken by any later one, and another process's commits, never
// announced here, are read from the log by the next read the window has
// nothing for (a follower's poll).
func (c *recentReads) readAfter(ctx context.Context, pos int64, limit int, read func(context.Context, int64, int) ([]Record, error), announced func() int64) ([]Record, error) {
	out, from, full, atTail := c.take(nil, pos, limit)
	if full || c.caughtUp(out, from, announced) {
		return out, nil
	}
	if atTail {
		c.tail.Lock()
		defer c.tail.Unlock()
		if out, from, full, _ = c.take(out, from, limit); full || c.caughtUp(out, from, announced) {
			return out, nil
		}
	}
	rest := limit
	if limit > 0 {
		rest = limit - len(out)
	}
	recs, err := read(ctx, from, rest)
	if err != nil {
		if len(out) > 0 {
			// What the window gave is good; the error comes with the next read.
			return out, nil
		}
		return nil, err
	}
	c.fromLog.Add(int64(len(recs)))
	if len(recs) > 0 {
		c.mu.Lock()
		c.extend(from, recs)
		c.mu.Unlock()
	}
	if out == nil {
		return recs, nil
	}
	return append(out, recs...), nil
}

// caughtUp says whether a read that the window answered with out, up to
// from, has every commit announced in this process (see readAfter).
func (c *recentReads) caughtUp(out []Record, from int64, announced func() int64) bool {
	return len(out) > 0 && announced != nil && from >= announced()
}

// forget empties the window, keeping where it ends: after a deletion of
// events (the retention policy), which it may still hold, every read
// before its end goes to the log again.
func (c *recentReads) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lo = c.hi
	clear(c.recs)
	c.recs, c.bytes = nil, 0
}

// committed hands the window the records a transaction of this process
// has just committed, in position order: every record after the one
// before the first of them up to the last, as a transaction holding
// SQLite's one write lock commits them. They are added like a read of the
// log after that position, so a window that ends before it starts anew
// there, and records a reader already brought in are not added twice.
// Records out of order (none of herd's transactions appends so) are left
// to the readers to read.
func (c *recentReads) committed(recs []Record) {
	if len(recs) == 0 {
		return
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].Position <= recs[i-1].Position {
			return
		}
	}
	c.mu.Lock()
	c.extend(recs[0].Position-1, recs)
	c.mu.Unlock()
	c.handedOn.Add(int64(len(recs)))
}

// take appends to out what the window holds after pos, up to limit
// records in all, and says where the log must be read from next, whether
// out is full, and whether that is at or past the window's end.
func (c *recentReads) take(out []Record, pos int64, limit int) (_ []Record, from int64, full, atTail bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lo <= pos && pos < c.hi {
		i, _ := slices.BinarySearchFunc(c.recs, pos+1, func(r Record, p int64) int { return cmp.Compare(r.Position, p) })
		n := len(c.recs) - i
		if limit > 0 {
			n = min(n, limit-len(out))
		}
		out = append(out, c.recs[i:i+n]...)
		pos = c.recs[i+n-1].Position
		c.fromMemory.Add(int64(n))
	}
	return out, pos, limit > 0 && len(out) == limit, pos >= c.hi
}

// extend adds recs, every record after from up to the last of them, to
// the window when they reach past it, and drops the oldest beyond the
// window's bounds. The caller holds c.mu.
func (c *recentReads) extend(from int64, recs []Record) {
	last := recs[len(recs)-1].Position
	switch {
	case last <= c.hi:
		return // nothing newer than the window holds
	case from > c.hi:
		// A gap between the window and these: they start a new one.
		c.lo, c.hi, c.recs, c.bytes = from, from, nil, 0
	}
	for _, r := range recs {
		if r.Position <= c.hi {
			continue // the window has it already (another read got there first)
		}
		c.recs = append(c.recs, r)
		c.bytes += recordSize(&r)
	}
	c.hi = last
	drop := 0
	for drop < len(c.recs)-1 && (len(c.recs)-drop > c.maxRecs || c.bytes > c.maxBytes) {
		c.bytes -= recordSize(&c.recs[drop])
		drop++
	}
	if drop == 0 {
		return
	}
	c.lo = c.recs[drop-1].Position
	// Resliced, not copied down: once the array behind has no room left,
	// append moves the window alone to a new one, and the dropped records
	// go with the old. Each record is copied a few times over its stay,
	// not once per read.
	c.recs = c.recs[drop:]
}

// recordSize is about what r holds in memory.
func recordSize(r *Record) int64 {
	const fixed = 160 // the struct, its time and string headers
	return fixed + int64(len(r.Payload)+len(r.ID)+len(r.Stream)+len(r.Type)+
		len(r.Metadata.Actor)+len(r.Metadata.CausationID)+len(r.Metadata.CorrelationID)+len(r.Metadata.Source))
}

// readSharer is a log that can keep a window of recent reads: each
// engine's Log.
type readSharer interface {
	shareReads()
	recent() *recentReads
}

var (
	_ readSharer = sqliteLog{}
	_ readSharer = (*Postgres)(nil)
)

// ShareReads makes the readers of log's newest records in this process
// share them: a stretch of the log that one of them read (the reconcilers'
// dispatcher, the watch hub) is given to the next from memory, each
// record read and decoded once. Records so given share their Payload:
// readers must not change it. herd serve turns it on; a rebuild, which
// reads the log once from end to end, does not. A log that keeps no
// window (another implementation of Log) is left as it is.
func ShareReads(log Log) {
	if s, ok := log.(readSharer); ok {
		s.shareReads()
	}
}

// ReadsShared says how many records log's ReadAfter has given from the
// window of recent reads (records its commits handed on, or that another
// reader read first) and how many it read from the database since
// ShareReads; both 0 without it.
func ReadsShared(log Log) (fromMemory, fromLog int64) {
	s, ok := log.(readSharer)
	if !ok || s.recent() == nil {
		return 0, 0
	}
	c := s.recent()
	return c.fromMemory.Load(), c.fromLog.Load()
}

// CommitsHandedOn says how many records log's commits in this process
// have handed to the window of recent reads since ShareReads: on SQLite,
// every record committed through the log's transactions; 0 on PostgreSQL
// and without ShareReads.
func CommitsHandedOn(log Log) int64 {
	s, ok := log.(readSharer)
	if !ok || s.recent() == nil {
		return 0
	}
	return s.recent().handedOn.Load()
}

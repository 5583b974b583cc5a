package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeLog is an append-only list of records with gaps in its positions
// (as compaction leaves them), read as ReadAfter reads.
type fakeLog struct {
	mu    sync.Mutex
	recs  []Record
	reads int
	fail  error
}

func (f *fakeLog) add(positions ...int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range positions {
		f.recs = append(f.recs, Record{Position: p, ID: fmt.Sprint(p), Stream: "node/a", Type: "T", Payload: []byte(`{}`)})
	}
}

func (f *fakeLog) read(_ context.Context, pos int64, limit int) ([]Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.fail != nil {
		return nil, f.fail
	}
	var out []Record
	for _, r := range f.recs {
		if r.Position > pos && (limit <= 0 || len(out) < limit) {
			out = append(out, r)
		}
	}
	return out, nil
}

func positions(recs []Record) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.Position
	}
	return out
}

// TestRecentReadsAnswerAsTheLogDoes: whatever the window holds, every
// read answers what the log would, and a second reader of a stretch the
// first read takes it from memory.
func TestRecentReadsAnswerAsTheLogDoes(t *testing.T) {
	f := &fakeLog{}
	c := newRecentReads()
	read := func(pos int64, limit int) []int64 {
		t.Helper()
		got, err := c.readAfter(t.Context(), pos, limit, f.read, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := f.read(t.Context(), pos, limit)
		f.reads--
		if diff := cmp.Diff(positions(want), positions(got)); diff != "" {
			t.Fatalf("readAfter(%d, %d) (-the log +the window):\n%s", pos, limit, diff)
		}
		return positions(got)
	}
	f.add(1, 2, 3, 5, 8, 9)
	read(0, 4) // the first reader: from the log
	reads := f.reads
	read(0, 2) // the second: from memory
	read(2, 2)
	if f.reads != reads {
		t.Errorf("%d reads of the log for a stretch read before", f.reads-reads)
	}
	read(5, 0) // the rest: 8, 9 from the log
	f.add(10, 12)
	read(3, 10) // 5, 8, 9 from memory, 10 and 12 from the log
	read(12, 10)
	read(0, 0) // far back: from the log, the window left alone
	reads = f.reads
	read(9, 1)
	if f.reads != reads {
		t.Error("a read far back disturbed the window")
	}
	memory, log := c.fromMemory.Load(), c.fromLog.Load()
	if memory == 0 || log == 0 {
		t.Errorf("%d records from memory, %d from the log: want both", memory, log)
	}
}

// TestRecentReadsKeepTheirBounds: the window drops its oldest records
// past its count and its bytes, and still answers exactly.
func TestRecentReadsKeepTheirBounds(t *testing.T) {
	f := &fakeLog{}
	c := newRecentReads()
	c.maxRecs, c.maxBytes = 10, 20*recordSize(&Record{Payload: []byte(`{}`), ID: "10", Stream: "node/a", Type: "T"})
	for p := int64(1); p <= 100; p++ {
		f.add(p * 2)
		if _, err := c.readAfter(t.Context(), (p-1)*2, 1, f.read, nil); err != nil {
			t.Fatal(err)
		}
		if len(c.recs) > 10 {
			t.Fatalf("%d records kept, at most 10", len(c.recs))
		}
	}
	if c.lo != 180 || c.hi != 200 || positions(c.recs)[0] != 182 {
		t.Errorf("window (%d, %d] from %d, want (180, 200] from 182", c.lo, c.hi, positions(c.recs)[0])
	}
	got, _ := c.readAfter(t.Context(), 150, 100, f.read, nil)
	if want := []int64{152, 154}; !slices.Equal(positions(got)[:2], want) || len(got) != 25 {
		t.Errorf("read behind the window: %v, want 152 to 200", positions(got))
	}
	big := Record{Position: 201, Payload: make([]byte, 4<<10)} // more than the window's bytes
	f.mu.Lock()
	f.recs = append(f.recs, big)
	f.mu.Unlock()
	if _, err := c.readAfter(t.Context(), 200, 10, f.read, nil); err != nil {
		t.Fatal(err)
	}
	if len(c.recs) != 1 || c.lo != 200 || c.hi != 201 {
		t.Errorf("%d bytes kept in %d records as (%d, %d], want the large one alone (200, 201]", c.bytes, len(c.recs), c.lo, c.hi)
	}
}

// TestRecentReadsPassErrorsOn: a failed read of the log is the reader's
// error, unless the window already gave it records.
func TestRecentReadsPassErrorsOn(t *testing.T) {
	f := &fakeLog{}
	c := newRecentReads()
	f.add(1, 2)
	if _, err := c.readAfter(t.Context(), 0, 10, f.read, nil); err != nil {
		t.Fatal(err)
	}
	f.fail = errors.New("disk on fire")
	if got, err := c.readAfter(t.Context(), 0, 10, f.read, nil); err != nil || len(got) != 2 {
		t.Errorf("with records in memory: %v, %v; want them and no error", positions(got), err)
	}
	if _, err := c.readAfter(t.Context(), 2, 10, f.read, nil); !errors.Is(err, f.fail) {
		t.Errorf("past the window: %v, want the log's error", err)
	}
}

// TestRecentReadsUnderConcurrentReaders: readers following the log at
// their own pace while it grows each see every record once, in order.
func TestRecentReadsUnderConcurrentReaders(t *testing.T) {
	f := &fakeLog{}
	c := newRecentReads()
	c.maxRecs = 50
	const last = 2000
	var wg sync.WaitGroup
	wg.Go(func() {
		for p := int64(1); p <= last; p++ {
			f.add(p)
		}
	})
	got := make([][]int64, 4)
	for i := range got {
		wg.Go(func() {
			var pos int64
			for pos < last {
				recs, err := c.readAfter(context.Background(), pos, 1+i*7, f.read, nil)
				if err != nil {
					t.Error(err)
					return
				}
				for _, r := range recs {
					got[i] = append(got[i], r.Position)
					pos = r.Position
				}
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if len(g) != last || !slices.IsSorted(g) || g[0] != 1 || g[last-1] != last {
			t.Errorf("reader %d saw %d records, want 1 to %d once each in order", i, len(g), last)
		}
	}
}

// commitTo adds records at positions to f, as a commit of this process
// does, and returns them as the commit hands them on.
func commitTo(f *fakeLog, positions ...int64) []Record {
	f.add(positions...)
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.recs[len(f.recs)-len(positions):])
}

// TestRecentReadsTakeCommitsFromMemory: the records this process's
// commits hand on are read from memory, not from the log; the log is read
// only to catch up — a reader at the head with nothing new, another
// process's commit (never handed on), commits handed on out of order, a
// reader behind the window — and every read answers what the log would.
func TestRecentReadsTakeCommitsFromMemory(t *testing.T) {
	f := &fakeLog{}
	c := newRecentReads()
	c.maxRecs = 10
	var announced commits
	read := func(pos int64, limit int) []int64 {
		t.Helper()
		got, err := c.readAfter(t.Context(), pos, limit, f.read, announced.announced)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := f.read(t.Context(), pos, limit)
		f.reads--
		if diff := cmp.Diff(positions(want), positions(got)); diff != "" {
			t.Fatalf("readAfter(%d, %d) (-the log +the window):\n%s", pos, limit, diff)
		}
		return positions(got)
	}
	commit := func(positions ...int64) {
		c.committed(commitTo(f, positions...))
		announced.announce(positions[len(positions)-1])
	}
	readsOfLog := func(want int, what string) {
		t.Helper()
		if f.reads != want {
			t.Fatalf("%s: %d reads of the log, want %d", what, f.reads, want)
		}
	}

	commit(1, 2, 3)
	read(0, 2)
	read(0, 10)
	read(2, 10)
	readsOfLog(0, "commits handed on")
	read(3, 10)
	readsOfLog(1, "a reader at the head")

	f.add(4, 5) // another process's commit: neither handed on nor announced
	commit(6, 7)
	read(3, 10)
	readsOfLog(2, "a reader across another process's commit")
	read(5, 10)
	readsOfLog(2, "after another process's commit")

	recs8, recs10 := commitTo(f, 8, 9), commitTo(f, 10, 11)
	c.committed(recs10) // the later commit's records come first
	announced.announce(11)
	c.committed(recs8)
	read(7, 10)
	readsOfLog(3, "commits handed on out of order")
	read(9, 10)
	readsOfLog(3, "the later of commits handed on out of order")

	var big []int64
	for p := int64(12); p <= 40; p++ {
		big = append(big, p)
	}
	commit(big...) // more than the window holds
	if c.lo != 30 || c.hi != 40 {
		t.Fatalf("window (%d, %d] after a commit larger than it, want (30, 40]", c.lo, c.hi)
	}
	read(11, 5)
	readsOfLog(4, "a reader behind the window")
	read(30, 100)
	readsOfLog(4, "a reader back in the window")
	if got := c.handedOn.Load(); got != 38 {
		t.Errorf("%d records handed on, want 38", got)
	}
}

// TestRecentReadsHandedOnUnderConcurrentCommits: readers following the
// head as the dispatcher and the watch hub do, while two writers commit
// and hand their records on in whatever order they finish and another
// process commits now and then, each see every record once, in order.
func TestRecentReadsHandedOnUnderConcurrentCommits(t *testing.T) {
	f := &fakeLog{}
	c := newRecentReads()
	c.maxRecs = 50
	var announced commits
	const last = 3000
	var (
		wg      sync.WaitGroup
		writeMu sync.Mutex // the one write lock
		next    int64
	)
	for w := range 2 {
		wg.Go(func() {
			for {
				writeMu.Lock()
				if next >= last {
					writeMu.Unlock()
					return
				}
				n := min(int64(1+w*3), last-next)
				var ps []int64
				for range n {
					next++
					ps = append(ps, next)
				}
				other := next%13 == 0
				recs := commitTo(f, ps...)
				writeMu.Unlock()
				if !other {
					c.committed(recs)
					announced.announce(ps[len(ps)-1])
				}
			}
		})
	}
	got := make([][]int64, 3)
	for i := range got {
		wg.Go(func() {
			var pos int64
			for pos < last {
				_, woken := announced.signal()
				recs, err := c.readAfter(context.Background(), pos, 1+i*5, f.read, announced.announced)
				if err != nil {
					t.Error(err)
					return
				}
				for _, r := range recs {
					got[i] = append(got[i], r.Position)
					pos = r.Position
				}
				if len(recs) == 0 {
					select { // another process's commits are found by a poll
					case <-woken:
					case <-time.After(time.Millisecond):
					}
				}
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if len(g) != last || !slices.IsSorted(g) || g[0] != 1 || g[last-1] != last {
			t.Errorf("reader %d saw %d records, want 1 to %d once each in order", i, len(g), last)
		}
	}
}

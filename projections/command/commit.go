package command

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"herd/events"
)

// maxGroup bounds how many commands share one transaction. A larger group
// pays for its fsync over more callers but makes its first caller wait for
// all the others' work; at tens of microseconds a command, 512 keep a
// group's work around 10–20 ms, well below one heartbeat's p99 target.
const maxGroup = 512

// errPanicFormat is the error of a command that panicked.
const errPanicFormat = "command panicked: %v"

// groupCommit is the unit of work's writer side: it takes the commands of
// concurrent callers (API requests, reconcilers) into one write
// transaction, each in its own savepoint, commits once and only then
// answers every caller. There is no writer goroutine and no timer: the
// first caller to find nobody committing leads, running every command
// queued at that moment (its own included) and handing the lead to the
// next waiter when it is done, so a lone command on an idle herd commits
// at once, and commands that arrive during a commit's fsync form the next
// group.
type groupCommit struct {
	log     groupLog
	metrics *Metrics

	mu      sync.Mutex
	queue   []*command
	leading bool

	// current is the command whose function runs now; only the leader
	// touches it, so it needs no lock.
	current *command
	// heads is the version of each stream as this process last committed
	// it, for the stale check of ready writes; only the leader touches
	// it. A stream it does not know is checked by the append's own
	// version guard, which also catches other processes' writes.
	heads map[string]int64
	// forget drops a stream's remembered state (the unit's state cache):
	// after a group whose commit failed, a state remembered from before
	// it may not be the stream's any more (a commit can fail after it
	// reached the disk). Nil forgets nothing.
	forget func(stream string)
	// committing, when set, is told which streams a group's commit may
	// move, from just before the commit until their states are put
	// (stateCache.committing).
	committing *stateCache
	// marked are the streams marked committing by the group now
	// committing; only the leader touches it.
	marked []string
	// sharing, when set (Unit.ShareStates), is told which streams a
	// group's commit will share the states of, from just before the
	// commit until they are shared (stateCache.sharing); shared are
	// those of the group now committing, and settled is called once
	// each group's are shared and unmarked.
	sharing *stateCache
	shared  []string
	settled func()
	// ended, when set, is told of the streams each group may have moved
	// once its transaction ended (err nil: committed), while they are
	// still marked committing (Unit.ObserveCommits).
	ended func(streams map[string]int64, err error)
}

// markCommitting marks every stream group may have moved as committing,
// and those whose states it will share as sharing, just before its
// commit.
func (g *groupCommit) markCommitting(group []*command) {
	if g.committing != nil {
		for _, c := range group {
			if c.ready != nil {
				g.marked = append(g.marked, c.ready.stream)
			}
			for stream := range c.moved {
				g.marked = append(g.marked, stream)
			}
		}
		g.committing.commitStarts(g.marked)
	}
	if g.sharing != nil {
		for _, c := range group {
			if c.ready != nil && c.ready.shared {
				g.shared = append(g.shared, c.ready.stream)
			}
			g.shared = append(g.shared, c.shared...)
		}
		g.sharing.sharingStarts(g.shared)
	}
}

// unmarkCommitting ends what markCommitting marked.
func (g *groupCommit) unmarkCommitting() {
	if len(g.marked) > 0 {
		g.committing.commitEnded(g.marked)
		g.marked = g.marked[:0]
	}
	if len(g.shared) > 0 {
		g.sharing.sharingEnded(g.shared)
		g.shared = g.shared[:0]
	}
}

// willShare says the command now running on the leader shares stream's
// state once committed (Unit.ShareStates).
func (g *groupCommit) willShare(stream string) {
	if c := g.current; c != nil && g.sharing != nil {
		c.shared = append(c.shared, stream)
	}
}

// groupLog is all of the log the group commit holds: what begins its
// transaction and hears how writes end. Not the log's pool: nothing the
// leader runs may take a second connection (runReady).
type groupLog interface {
	Begin(ctx context.Context) (events.LogTx, error)
	ObserveWrite(err error)
}

// maxHeads bounds the stream versions the leader remembers: a fleet
// larger than that checks the others by the append's version guard.
const maxHeads = 1 << 17

// command is one caller's function, or its ready write, and its answer.
type command struct {
	ctx context.Context
	fn  func(Tx) error
	// ready, when set, is the command already decided and encoded: the
	// leader checks its version and writes it, and runs no function.
	ready *readyWrite
	err   error
	// head is the highest log position fn appended, 0 for none.
	head int64
	// moved are the streams fn appended to; shared those whose states
	// it shares once committed (willShare).
	moved  map[string]bool
	shared []string
	// committed run once the group that holds the command has committed;
	// a command rolled back drops them.
	committed []func()
	// lead is closed to make this command's caller the leader; done is
	// closed once its group committed or failed.
	lead, done chan struct{}
}

// do runs fn in a write transaction shared with other callers' commands
// and returns once that transaction committed (nil) or fn's own error,
// or the commit's. fn must not call do again: it runs on the leader.
// fn's writes are visible to the commands after it in the same group,
// exactly as if they had run one after the other.
func (g *groupCommit) do(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return g.run(&command{ctx: ctx, fn: fn, lead: make(chan struct{}), done: make(chan struct{})})
}

// doReady writes r in a transaction shared with other callers' commands
// and returns once it committed, with the position of its last event;
// errStale when its stream moved since it was decided (nothing written).
func (g *groupCommit) doReady(ctx context.Context, r *readyWrite) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	c := &command{ctx: ctx, ready: r, lead: make(chan struct{}), done: make(chan struct{})}
	err := g.run(c)
	return c.head, err
}

// run queues c and returns its answer once its group is done, leading
// the group when nobody else does.
func (g *groupCommit) run(c *command) error {
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if !g.leading {
		g.leading = true
		close(c.lead)
	}
	g.mu.Unlock()
	// The caller waits for its answer even when its context ends: fn may
	// be running on the leader and writing into the caller's variables.
	select {
	case <-c.done:
		return c.err
	case <-c.lead:
	}
	g.lead()
	<-c.done
	return c.err
}

// lead commits one group: every command queued now, up to maxGroup. Then
// it hands the lead to the first command still queued, if any.
func (g *groupCommit) lead() {
	g.mu.Lock()
	n := min(len(g.queue), maxGroup)
	group := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()

	g.commit(group)

	g.mu.Lock()
	if len(g.queue) > 0 {
		close(g.queue[0].lead)
	} else {
		g.leading = false
		g.queue = nil // let the backing array go
	}
	g.mu.Unlock()
}

// commit runs group in one transaction and answers each command.
func (g *groupCommit) commit(group []*command) {
	// Wall time on purpose: how long a group held the write lock, a
	// metric, not a domain time.
	start := time.Now()
	moved := map[string]int64{}
	err := g.runGroup(group, moved)
	if err == nil {
		g.remember(moved)
	}
	var head int64
	committed := 0
	for _, c := range group {
		if err != nil && c.err == nil {
			c.err = err
		}
		if c.err == nil {
			head = max(head, c.head)
			committed++
		}
	}
	g.metrics.observeGroup(len(group), committed, time.Since(start), head)
	g.observeWrites(err, group, committed)
	if err != nil && g.forget != nil {
		for _, c := range group {
			if c.ready != nil {
				g.forget(c.ready.stream)
			}
			for stream := range c.moved {
				g.forget(stream)
			}
		}
	}
	if err == nil {
		for _, c := range group {
			if c.err == nil {
				for _, fn := range c.committed {
					fn()
				}
			}
		}
	}
	if g.ended != nil {
		g.ended(moved, err)
	}
	// The streams runGroup marked as committing, once their states are
	// put (or forgotten), before the callers are answered.
	g.unmarkCommitting()
	if g.settled != nil {
		g.settled()
	}
	for _, c := range group {
		close(c.done)
	}
}

// observeWrites tells the store whether the log could be written: a
// failed transaction, or commands that failed for want of storage (a full
// disk fails the insert itself), say it could not; a commit says it could.
func (g *groupCommit) observeWrites(err error, group []*command, committed int) {
	if err != nil {
		g.log.ObserveWrite(err)
		return
	}
	for _, c := range group {
		if c.err != nil {
			g.log.ObserveWrite(c.err)
		}
	}
	if committed > 0 {
		g.log.ObserveWrite(nil)
	}
}

// runGroup begins the transaction, runs each command in its savepoint and
// commits. A non-nil error means nothing committed. The commit announces
// the head the group kept to the log's followers.
func (g *groupCommit) runGroup(group []*command, moved map[string]int64) error {
	// The transaction outlives any one caller: begun without a caller's
	// context, which database/sql would roll back when that caller goes.
	ltx, err := g.log.Begin(context.Background())
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := NewTx(ltx)
	alone := len(group) == 1
	stmts := events.TxStatements{}
	// Consecutive ready writes are written together; a command run as a
	// function between them keeps its place in the order.
	for i := 0; i < len(group); {
		if group[i].ready == nil {
			if err := g.runCommand(tx, group[i], alone, moved); err != nil {
				_ = ltx.Rollback()
				return err
			}
			i++
			continue
		}
		j := i
		for j < len(group) && group[j].ready != nil {
			j++
		}
		if err := g.runReady(tx, group[i:j], moved, stmts); err != nil {
			_ = ltx.Rollback()
			return err
		}
		i = j
	}
	if alone && group[0].err != nil {
		_ = ltx.Rollback()
		return nil
	}
	g.markCommitting(group)
	if err := ltx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// runCommand runs one command, in a savepoint unless it is alone (then a
// failure rolls back the whole transaction, which is cheaper). The
// command's own failure goes to c.err; a returned error means the
// transaction itself is broken.
func (g *groupCommit) runCommand(tx Tx, c *command, alone bool, moved map[string]int64) error {
	if err := c.ctx.Err(); err != nil {
		c.err = err // the caller gave up before its turn: nothing ran
		return nil
	}
	// The command's statements run without its cancellation: a caller that
	// goes away mid-command would otherwise interrupt the connection the
	// whole group shares. Its values (actor, correlation) are kept.
	ctx := context.WithoutCancel(c.ctx)
	if !alone {
		if err := tx.log.Savepoint(ctx); err != nil {
			return fmt.Errorf("savepoint: %w", err)
		}
	}
	g.current = c
	c.err = call(c.fn, tx)
	g.current = nil
	if c.err == nil {
		for stream := range c.moved {
			moved[stream] = -1
		}
	}
	if alone {
		return nil
	}
	if c.err != nil {
		c.head, c.committed = 0, nil
		if err := tx.log.RollbackToSavepoint(ctx); err != nil {
			return fmt.Errorf("roll back a rejected command: %w", err)
		}
	}
	if err := tx.log.ReleaseSavepoint(ctx); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	return nil
}

// appended notes that the running command appended up to position pos
// on stream. A command run as a function moves the stream where the
// leader does not follow it: the stale check of the ready writes after
// it leaves that stream to the append's version guard.
func (g *groupCommit) appended(stream string, pos int64) {
	if c := g.current; c != nil {
		c.head = max(c.head, pos)
		if c.moved == nil {
			c.moved = map[string]bool{}
		}
		c.moved[stream] = true
	}
}

// runReady writes ready commands: the stale check, the appends (which
// take the positions) and their rows, with no savepoint, as nothing in
// them can be refused after the append. A command whose stream moved
// since it was decided is answered errStale and writes nothing. A
// returned error means the transaction itself is broken.
func (g *groupCommit) runReady(tx Tx, cmds []*command, moved map[string]int64, stmts events.TxStatements) error {
	var ok []*command
	for _, c := range cmds {
		if err := c.ctx.Err(); err != nil {
			c.err = err // the caller gave up before its turn: nothing ran
			continue
		}
		r := c.ready
		head, known := moved[r.stream]
		inGroup := known
		if !known {
			head, known = g.heads[r.stream]
		}
		if known && head >= 0 && head != r.expected {
			c.err = errStale
			if !inGroup {
				// The leader's version may be the stale one (another
				// process wrote): the next try goes to the append's guard.
				delete(g.heads, r.stream)
			}
			continue
		}
		if readMoved(r, moved) {
			c.err = errReadMoved
			continue
		}
		// Where the stream will stand if the append takes it: the next
		// ready write of the same stream in this group is stale, and so
		// is one that read it before.
		moved[r.stream] = r.expected + int64(len(r.evs))
		ok = append(ok, c)
	}
	if len(ok) == 0 {
		return nil
	}
	recs, errs, err := g.appendReady(tx, ok)
	if err != nil {
		return err
	}
	// The writes appended, their rows to run (writes) and their indexes
	// in ok (done).
	writes := make([]events.RecordedWrite, 0, len(ok))
	done := make([]int, 0, len(ok))
	for i, c := range ok {
		r := c.ready
		if errors.Is(errs[i], events.ErrConflict) {
			moved[r.stream] = -1 // unknown: the append's guard decides
			var conflict *events.ConflictError
			if errors.As(errs[i], &conflict) && conflict.Stream != r.stream {
				// A stream it read moved; its own may stand.
				c.err = errReadMoved
				continue
			}
			c.err = errStale
			delete(g.heads, r.stream)
			continue
		}
		if errs[i] != nil {
			c.err = errs[i]
			moved[r.stream] = -1
			continue
		}
		writes = append(writes, events.RecordedWrite{Rows: r.rows, Records: recs[i]})
		done = append(done, i)
	}
	// Each row through the statement prepared on the database before the
	// command queued, bound to the group's transaction once (SQLite's),
	// or all the group's rows as one pipelined batch on the transaction's
	// own connection (PostgreSQL's): nothing here takes a second
	// connection from the pool while the group's transaction holds one.
	// The pool's others may be held by readers waiting for this very
	// transaction's appends to be decided (events' reader rule), and the
	// leader would wait for them and they for it. The group commit has no
	// pool to take one from: its log is only what begins a transaction
	// (groupLog).
	if failed, err := tx.v.ExecRecordedWrites(context.Background(), stmts, writes); err != nil {
		// The events are in and their rows are not: nothing of the group
		// may commit.
		i := done[failed]
		return fmt.Errorf("view rows of %s@%d: %w", ok[i].ready.stream, recs[i][0].Version, err)
	}
	for _, i := range done {
		c, last := ok[i], recs[i][len(recs[i])-1]
		c.head = last.Position
		if committed := c.ready.committed; committed != nil {
			c.committed = append(c.committed, func() { committed(last.Position) })
		}
	}
	return nil
}

// appendReady appends the events of cmds' ready writes: with one
// statement for many streams where the log's transaction can
// (events.PreparedAppender: SQLite's and PostgreSQL's), else one Append
// each. It returns
// each one's records or error; a non-nil error means the transaction is
// broken.
func (g *groupCommit) appendReady(tx Tx, cmds []*command) (_ [][]events.Record, _ []error, err error) {
	start := time.Now()
	n := 0
	defer func() { g.metrics.observeAppend(n, time.Since(start)) }()
	if pa, ok := tx.log.(events.PreparedAppender); ok {
		ps := make([]*events.PreparedAppend, len(cmds))
		for i, c := range cmds {
			if ps[i] = c.ready.prepared; ps[i] == nil {
				ps = nil
				break
			}
		}
		if ps != nil {
			recs, errs, err := pa.AppendPrepared(context.Background(), ps)
			for _, r := range recs {
				n += len(r)
			}
			return recs, errs, err
		}
	}
	recs := make([][]events.Record, len(cmds))
	errs := make([]error, len(cmds))
	for i, c := range cmds {
		r := c.ready
		if errs[i], err = readsMovedIn(tx, c); err != nil {
			return nil, nil, err
		}
		if errs[i] != nil {
			continue
		}
		recs[i], errs[i] = tx.log.Append(context.WithoutCancel(c.ctx), r.stream, r.expected, r.md, r.at, r.evs...)
		if errs[i] != nil && !errors.Is(errs[i], events.ErrConflict) {
			errs[i] = fmt.Errorf("append %s@%d: %w", r.stream, r.expected, errs[i])
		}
		n += len(recs[i])
	}
	return recs, errs, nil
}

// readMoved reports whether a stream r read was moved by a write before
// it in the group to a version other than the one r read. A stream the
// group moved where the leader does not follow it (-1), or did not move,
// is checked in the transaction (readsMovedIn, or the prepared append's
// own read of its streams' versions).
func readMoved(r *readyWrite, moved map[string]int64) bool {
	for _, read := range r.reads {
		if v, ok := moved[read.Stream]; ok && v >= 0 && v != read.Version {
			return true
		}
	}
	return false
}

// readsMovedIn is a *events.ConflictError for the first stream c's ready
// write read that stands elsewhere in tx than it read it, nil when none
// does: where a write of the group has no prepared append, the read
// set's check beside the append's own of its stream. The read is the
// transaction's, which sees every write before c in the group and, on
// PostgreSQL (read committed), every other transaction committed before
// it, as the append's own check does; one committed after it comes
// after c's write. A returned error means the transaction is broken.
func readsMovedIn(tx Tx, c *command) (conflict, err error) {
	for _, read := range c.ready.reads {
		later, err := tx.log.ReadStream(context.WithoutCancel(c.ctx), read.Stream, read.Version)
		if err != nil {
			return nil, fmt.Errorf("read %s after version %d: %w", read.Stream, read.Version, err)
		}
		if len(later) > 0 {
			return &events.ConflictError{Stream: read.Stream, Expected: read.Version, Actual: later[len(later)-1].Version}, nil
		}
	}
	return nil, nil
}

// remember keeps the stream versions a committed group left; a stream a
// function moved is forgotten, as the leader did not follow it.
func (g *groupCommit) remember(moved map[string]int64) {
	if g.heads == nil {
		g.heads = make(map[string]int64)
	}
	for stream, v := range moved {
		if v < 0 {
			delete(g.heads, stream)
			continue
		}
		if _, ok := g.heads[stream]; !ok && len(g.heads) >= maxHeads {
			for k := range g.heads { // an arbitrary entry: Go's map order
				delete(g.heads, k)
				break
			}
		}
		g.heads[stream] = v
	}
}

// afterCommit runs fn once the running command's group has committed,
// and never if the command or its group is rolled back.
func (g *groupCommit) afterCommit(fn func()) {
	if c := g.current; c != nil {
		c.committed = append(c.committed, fn)
	}
}

// call runs fn, turning a panic into the command's error: one bad command
// must not take the group, or herd, down with it.
func call(fn func(Tx) error, tx Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf(errPanicFormat, p)
		}
	}()
	return fn(tx)
}

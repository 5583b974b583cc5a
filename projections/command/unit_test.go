package command

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
)

// The unit of work on its own, with a kind of its tests' making: a
// counter whose row is one line of a table of its own. What the read
// models' kinds add (their rows, their observers) is tested in
// projections.

// counter is the test kind's state.
type counter struct {
	N                 int
	Version, Position int64
}

// counterSet is the test kind's one event.
type counterSet struct {
	N int `json:"n"`
}

func (counterSet) EventType() string { return "TestCounterSet" }

// counters is the test kind, run in mode; its rows are in test_counters,
// or in table when it is set.
type counters struct {
	mode  Mode
	table string
	// loads, when set, counts the rows Load reads.
	loads *atomic.Int64
}

var _ Aggregate[counter] = counters{}

func (counters) Stream(key string) string       { return "testcounter/" + key }
func (counters) Fresh(string) counter           { return counter{} }
func (counters) Version(c counter) int64        { return c.Version }
func (counters) Position(c counter) int64       { return c.Position }
func (counters) Observers() []Observer[counter] { return nil }
func (k counters) Mode() Mode                   { return k.mode }

func (counters) AtPosition(c counter, pos int64) counter { c.Position = pos; return c }

func (k counters) Load(ctx context.Context, q events.Querier, key string) (counter, error) {
	if k.loads != nil {
		k.loads.Add(1)
	}
	rows, err := q.QueryContext(ctx, `SELECT n, version, position FROM `+k.tableName()+` WHERE key = ?`, key)
	if err != nil {
		return counter{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		return counter{}, fmt.Errorf("counter %s: %w", key, domain.ErrNotFound)
	}
	var c counter
	if err := rows.Scan(&c.N, &c.Version, &c.Position); err != nil {
		return c, err
	}
	return c, rows.Err()
}

func (counters) Fold(_ context.Context, _ events.Execer, _ string, c counter, rec events.Record, ev domain.Event) (counter, error) {
	c.N = ev.(counterSet).N
	c.Version, c.Position = rec.Version, rec.Position
	return c, nil
}

func (k counters) WriteRows(ctx context.Context, x events.Execer, key string, c counter, _ []domain.Event, rv int64) error {
	_, err := x.ExecContext(ctx, `INSERT INTO `+k.tableName()+` (key, n, version, position) VALUES (?, ?, ?, ?)
ON CONFLICT (key) DO UPDATE SET n = excluded.n, version = excluded.version, position = excluded.position`, key, c.N, c.Version, rv)
	return err
}

// tableName is the table of k's rows.
func (k counters) tableName() string {
	if k.table == "" {
		return "test_counters"
	}
	return k.table
}

// set sets a counter to n: nothing when it is n already, refused below 0.
func set(n int) func(counter) ([]domain.Event, error) {
	return func(c counter) ([]domain.Event, error) {
		if n < 0 {
			return nil, fmt.Errorf("counter to %d: %w", n, domain.ErrInvalid)
		}
		if c.Version > 0 && c.N == n {
			return nil, nil
		}
		return []domain.Event{counterSet{N: n}}, nil
	}
}

// openUnits opens a fresh SQLite log with the test kind's table and n
// units of work on it, as n processes on one file would have.
func openUnits(t *testing.T, n int) ([]*Unit, *events.Store) {
	t.Helper()
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	for _, table := range []string{"test_counters", "test_counters_too"} {
		if _, err := store.DB().ExecContext(t.Context(),
			`CREATE TABLE `+table+` (key TEXT PRIMARY KEY, n INTEGER NOT NULL, version INTEGER NOT NULL, position INTEGER NOT NULL)`); err != nil {
			t.Fatal(err)
		}
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC))
	units := make([]*Unit, n)
	for i := range units {
		units[i] = New(store.Log(), store.DB(), clk, nil)
	}
	return units, store
}

// row reads counter key's row as committed.
func row(t *testing.T, store *events.Store, key string) counter {
	t.Helper()
	c, err := counters{}.Load(t.Context(), store.DB(), key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hold holds u's group commit until release is called: commands started
// meanwhile queue behind it (queued waits for n of them).
func hold(t *testing.T, u *Unit) (queued func(n int), release func()) {
	t.Helper()
	started, unblock, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- u.Do(t.Context(), func(Tx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	return func(n int) {
			t.Helper()
			eventstest.Eventually(t, eventstest.WaitFor, func() bool { return u.Queued() >= n }, "%d commands queued", n)
		}, func() {
			close(unblock)
			if err := <-held; err != nil {
				t.Errorf("holding command: %v", err)
			}
		}
}

// modes are the ways a kind's commands run: on the leader, on the leader
// on a remembered state, prepared on a remembered state.
var modes = map[string]Mode{
	"leader":           {},
	"leader, cached":   {Cached: true},
	"prepared, cached": {Cached: true, Prepared: true},
}

// TestAGroupCommitsAllButTheRefusedCommand: commands queued together
// commit together, each on its own; a refused one writes nothing and
// gets its own error.
func TestAGroupCommitsAllButTheRefusedCommand(t *testing.T) {
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			units, store := openUnits(t, 1)
			u, kind := units[0], counters{mode: mode}
			queued, release := hold(t, u)
			errs := make([]error, 3)
			var wg sync.WaitGroup
			for i, n := range []int{1, 3} {
				wg.Go(func() { _, errs[i] = Update(t.Context(), u, kind, fmt.Sprint("c", i), set(n)) })
				queued(i + 1)
			}
			// On the leader, the refusal is one of the group; prepared, it
			// is answered before it queues.
			refused := make(chan struct{})
			wg.Go(func() {
				defer close(refused)
				_, errs[2] = Update(t.Context(), u, kind, "c2", set(-1))
			})
			eventstest.Eventually(t, eventstest.WaitFor, func() bool {
				select {
				case <-refused:
					return true
				default:
					return u.Queued() >= 3
				}
			}, "the refused command queued or answered")
			release()
			wg.Wait()
			if errs[0] != nil || errs[1] != nil || !errors.Is(errs[2], domain.ErrInvalid) {
				t.Fatalf("errors %v, want nil, nil, ErrInvalid", errs)
			}
			if row(t, store, "c0").N != 1 || row(t, store, "c1").N != 3 {
				t.Errorf("rows c0 %+v, c1 %+v", row(t, store, "c0"), row(t, store, "c1"))
			}
			if _, err := kind.Load(t.Context(), store.DB(), "c2"); !errors.Is(err, domain.ErrNotFound) {
				t.Errorf("the refused command left a row: %v", err)
			}
		})
	}
}

// TestANoOpOnARememberedStateBehindTheRowIsWritten: another process set
// the counter since this one remembered it; setting it back to what the
// memory says is a change of the row, and is written.
func TestANoOpOnARememberedStateBehindTheRowIsWritten(t *testing.T) {
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			units, store := openUnits(t, 2)
			mine, theirs, kind := units[0], units[1], counters{mode: mode}
			if _, err := Update(t.Context(), mine, kind, "c", set(1)); err != nil {
				t.Fatal(err)
			}
			if _, err := Update(t.Context(), theirs, kind, "c", set(2)); err != nil {
				t.Fatal(err)
			}
			got, err := Update(t.Context(), mine, kind, "c", set(1))
			if err != nil {
				t.Fatal(err)
			}
			if r := row(t, store, "c"); r.N != 1 || r.Version != 3 || got != r {
				t.Errorf("after 1, 2 (another process) and 1 again: row %+v, answered %+v; want n 1 at version 3", r, got)
			}
		})
	}
}

// TestTwoCommandsOfOneStreamInOneGroupApplyInOrder: the second of two
// commands on one counter in one group decides on what the first wrote,
// not yet committed, even when that makes it a change back.
func TestTwoCommandsOfOneStreamInOneGroupApplyInOrder(t *testing.T) {
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			units, store := openUnits(t, 1)
			u, kind := units[0], counters{mode: mode}
			if _, err := Update(t.Context(), u, kind, "c", set(1)); err != nil {
				t.Fatal(err)
			}
			queued, release := hold(t, u)
			errs := make(chan error, 2)
			go func() { _, err := Update(t.Context(), u, kind, "c", set(2)); errs <- err }()
			queued(1)
			go func() { _, err := Update(t.Context(), u, kind, "c", set(1)); errs <- err }()
			queued(2)
			release()
			for range 2 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if r := row(t, store, "c"); r.N != 1 || r.Version != 3 {
				t.Errorf("after 1, then 2 and 1 in one group: row %+v, want n 1 at version 3", r)
			}
		})
	}
}

// TestANoOpOnACurrentRememberedStateReadsNoRow: a prepared command that
// changes nothing on a remembered state the log has not moved past is
// answered without reading its row.
func TestANoOpOnACurrentRememberedStateReadsNoRow(t *testing.T) {
	units, _ := openUnits(t, 1)
	kind := counters{mode: Mode{Cached: true, Prepared: true}, loads: new(atomic.Int64)}
	if _, err := Update(t.Context(), units[0], kind, "c", set(1)); err != nil {
		t.Fatal(err)
	}
	before := kind.loads.Load()
	got, err := Update(t.Context(), units[0], kind, "c", set(1))
	if err != nil || got.N != 1 || got.Version != 1 {
		t.Fatalf("the no-op: %+v, %v", got, err)
	}
	if n := kind.loads.Load() - before; n != 0 {
		t.Errorf("the no-op read %d rows, want none", n)
	}
}

// poolDrainingLog is a group commit's log whose next transaction, once
// armed, is begun with every other connection of the pool taken: a
// command inside that group that reaches for a pool connection waits
// for one (database/sql's WaitCount moves), where under load it would
// wait for readers that wait for the group.
type poolDrainingLog struct {
	groupLog
	db *sql.DB

	mu sync.Mutex
	// armed says the next Begin drains the pool; held are the
	// connections it took, handed back when its group ends.
	armed bool
	held  []*sql.Conn
	// waitsBefore is the pool's WaitCount when the draining group began;
	// inGroup says it has not ended.
	waitsBefore int64
	inGroup     bool
}

func (l *poolDrainingLog) Begin(ctx context.Context) (events.LogTx, error) {
	ltx, err := l.groupLog.Begin(ctx)
	if err != nil {
		return ltx, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.armed {
		return ltx, nil
	}
	l.armed = false
	// The group's transaction is on the connection kept for writes; every
	// other connection the pool may open is taken here.
	for st := l.db.Stats(); st.InUse < st.MaxOpenConnections; st = l.db.Stats() {
		c, err := l.db.Conn(ctx)
		if err != nil {
			_ = ltx.Rollback()
			return nil, err
		}
		l.held = append(l.held, c)
	}
	l.waitsBefore, l.inGroup = l.db.Stats().WaitCount, true
	return ltx, nil
}

// ObserveWrite comes once the group's transaction is over: the pool's
// connections go back.
func (l *poolDrainingLog) ObserveWrite(err error) {
	l.giveBack()
	l.groupLog.ObserveWrite(err)
}

// giveBack hands the drained connections back to the pool.
func (l *poolDrainingLog) giveBack() {
	l.mu.Lock()
	held := l.held
	l.held, l.inGroup = nil, false
	l.mu.Unlock()
	for _, c := range held {
		_ = c.Close()
	}
}

// waitedInGroup says a take of a pool connection waited while the
// draining group held the pool's others.
func (l *poolDrainingLog) waitedInGroup() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inGroup && l.db.Stats().WaitCount > l.waitsBefore
}

// TestNothingInAGroupTakesASecondPoolConnection: the group's
// transaction holds the connection kept for writes, and the pool's
// other connections are all taken (as readers waiting for this group's
// appends would hold them); the group's commands, of every mode, on
// remembered states and on rows never read before, and on a view
// statement never run before, commit without taking one. A command that
// read the pool inside the group would wait for a connection: the test
// sees the wait and fails rather than hang.
func TestNothingInAGroupTakesASecondPoolConnection(t *testing.T) {
	units, store := openUnits(t, 1)
	u := units[0]
	db := store.DB()
	// Write connection and two readers: a take beyond them waits.
	db.SetMaxOpenConns(3)
	drain := &poolDrainingLog{groupLog: u.group.log, db: db}
	u.group.log = drain
	t.Cleanup(drain.giveBack)

	// Remembered states for the cached modes, from an earlier group.
	for name, mode := range modes {
		if mode.Cached {
			if _, err := Update(t.Context(), u, counters{mode: mode}, "warm "+name, set(1)); err != nil {
				t.Fatal(err)
			}
		}
	}

	queued, release := hold(t, u)
	type write struct {
		kind counters
		key  string
		n    int
	}
	var writes []write
	for name, mode := range modes {
		writes = append(writes,
			write{counters{mode: mode}, "new " + name, 1},
			write{counters{mode: mode, table: "test_counters_too"}, "other " + name, 2})
		if mode.Cached {
			writes = append(writes, write{counters{mode: mode}, "warm " + name, 2})
		}
	}
	writes = append(writes, write{counters{mode: Mode{Prepared: true}}, "prepared", 3})
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Go(func() { _, errs[i] = Update(context.WithoutCancel(t.Context()), u, w.kind, w.key, set(w.n)) })
		queued(i + 1)
	}
	drain.mu.Lock()
	drain.armed = true
	drain.mu.Unlock()
	release()

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	waited := false
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		select {
		case <-done:
			return true
		default:
		}
		if drain.waitedInGroup() {
			waited = true
			return true
		}
		return false
	}, "the group of %d commands to commit", len(writes))
	if waited {
		buf := make([]byte, 1<<20)
		t.Log(string(buf[:runtime.Stack(buf, true)]))
		t.Error("a command inside the group waited for a second connection from the pool (ARCHITECTURE.md, \"Where the serial section is\")")
		drain.giveBack() // let the group finish, to end the test
	}
	<-done
	for i, w := range writes {
		if errs[i] != nil {
			t.Errorf("%s %q: %v", w.kind.tableName(), w.key, errs[i])
			continue
		}
		if c, err := w.kind.Load(t.Context(), db, w.key); err != nil || c.N != w.n {
			t.Errorf("%s %q: %+v, %v; want n %d", w.kind.tableName(), w.key, c, err, w.n)
		}
	}
}

// observingLog is a group commit's log that runs check when a group's
// write is observed: after its commit, before its states are put.
type observingLog struct {
	groupLog
	check func()
}

func (l *observingLog) ObserveWrite(err error) {
	l.check()
	l.groupLog.ObserveWrite(err)
}

// TestARememberedStateIsNotReadWhileItsCommitLandsOnSQLite: between a
// group's commit and the moment its states are remembered, a read of the
// row already shows the commit; a read from memory (Current) then must
// not answer the older state it still holds, for a command prepared or
// run on the leader. Once the group is done, memory answers the newer
// state, on the row's version.
func TestARememberedStateIsNotReadWhileItsCommitLandsOnSQLite(t *testing.T) {
	for name, mode := range modes {
		if !mode.Cached {
			continue
		}
		t.Run(name, func(t *testing.T) {
			units, store := openUnits(t, 1)
			u, kind := units[0], counters{mode: mode}
			if _, err := Update(t.Context(), u, kind, "c", set(1)); err != nil {
				t.Fatal(err)
			}
			if s, ok := u.Current(kind.Stream("c")); !ok || s.(counter).Version != 1 {
				t.Fatalf("after the first commit, memory holds %+v, %v; want version 1", s, ok)
			}
			checked := false
			u.group.log = &observingLog{groupLog: u.group.log, check: func() {
				r := row(t, store, "c")
				if s, ok := u.Current(kind.Stream("c")); ok && s.(counter).Version < r.Version {
					t.Errorf("memory answered version %d while the committed row is at %d", s.(counter).Version, r.Version)
				}
				checked = true
			}}
			if _, err := Update(t.Context(), u, kind, "c", set(2)); err != nil {
				t.Fatal(err)
			}
			if !checked {
				t.Fatal("the commit was not observed")
			}
			if s, ok := u.Current(kind.Stream("c")); !ok || s.(counter).Version != 2 || s.(counter).N != 2 {
				t.Errorf("once the group is done, memory holds %+v, %v; want n 2 at version 2", s, ok)
			}
		})
	}
}

// create makes a counter at n, refused when it exists.
func create(n int) func(counter) ([]domain.Event, error) {
	return func(c counter) ([]domain.Event, error) {
		if c.Version > 0 {
			return nil, fmt.Errorf("counter exists: %w", domain.ErrAlreadyExists)
		}
		return []domain.Event{counterSet{N: n}}, nil
	}
}

// change sets an existing counter to n, refused when there is none.
func change(n int) func(counter) ([]domain.Event, error) {
	return func(c counter) ([]domain.Event, error) {
		if c.Version == 0 {
			return nil, fmt.Errorf("no counter: %w", domain.ErrNotFound)
		}
		return []domain.Event{counterSet{N: n}}, nil
	}
}

// streamEvents is how many events stream holds in store's log.
func streamEvents(t *testing.T, store *events.Store, stream string) int {
	t.Helper()
	recs, err := store.Log().ReadStream(t.Context(), stream, 0)
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// TestACreateOfANameNeverCommittedReadsNoRow: on SQLite, a prepared
// command that only creates (Create), on a stream this process remembers
// no commit of, is decided on the fresh state without reading its row;
// any other command (Update) on such a stream reads it, so that one that
// would append on a stream that exists (a registration recording a
// restart, after herd restarted) is not refused at the commit.
func TestACreateOfANameNeverCommittedReadsNoRow(t *testing.T) {
	units, store := openUnits(t, 1)
	kind := counters{mode: Mode{Cached: true, Prepared: true}, loads: new(atomic.Int64)}
	if _, err := Update(t.Context(), units[0], kind, "other", set(1)); err != nil {
		t.Fatal(err)
	}
	if n := kind.loads.Load(); n != 1 {
		t.Errorf("an update of a new name read %d rows, want 1", n)
	}
	kind.loads.Store(0)
	got, err := Create(t.Context(), units[0], kind, "c", create(1))
	if err != nil || got.N != 1 || got.Version != 1 {
		t.Fatalf("the create: %+v, %v", got, err)
	}
	if n := kind.loads.Load(); n != 0 {
		t.Errorf("the create of a new name read %d rows, want none", n)
	}
	if r := row(t, store, "c"); r != got {
		t.Errorf("row %+v, answered %+v", r, got)
	}
}

// TestASecondCreateOfANameIsRefusedWhateverThisProcessRemembers: a
// create of a name this process never saw committed is decided on the
// name presumed new, but a stream that exists after all — written by
// another process, by this one before a restart, or by a create queued
// at the same moment — refuses the append's expected version, and the
// create is decided again on the row and refused: the log keeps one
// creation. A refusal or a no-op decided on the presumption is decided
// again on the row too: a change of a counter another process created
// is applied, not answered "not found".
func TestASecondCreateOfANameIsRefusedWhateverThisProcessRemembers(t *testing.T) {
	for name, mode := range modes {
		t.Run(name, func(t *testing.T) {
			units, store := openUnits(t, 2)
			mine, theirs, kind := units[0], units[1], counters{mode: mode}
			if _, err := Create(t.Context(), theirs, kind, "c", create(1)); err != nil {
				t.Fatal(err)
			}
			if _, err := Create(t.Context(), mine, kind, "c", create(2)); !errors.Is(err, domain.ErrAlreadyExists) {
				t.Fatalf("a create of a name another process created: %v, want ErrAlreadyExists", err)
			}
			if r := row(t, store, "c"); r.N != 1 || r.Version != 1 || streamEvents(t, store, kind.Stream("c")) != 1 {
				t.Fatalf("row %+v after a second create; want the first's alone", r)
			}

			// A restart: a new unit of work on the same log remembers
			// nothing. A command that may append on a counter that exists
			// is decided on its row, not refused at the commit.
			restartedToo := New(store.Log(), store.DB(), mine.Clock(), nil)
			if got, err := Update(t.Context(), restartedToo, kind, "c", set(1)); err != nil || got.Version != 1 {
				t.Fatalf("a no-op after a restart: %+v, %v; want the counter at version 1", got, err)
			}
			restarted := New(store.Log(), store.DB(), mine.Clock(), nil)
			if _, err := Create(t.Context(), restarted, kind, "c", create(3)); !errors.Is(err, domain.ErrAlreadyExists) {
				t.Fatalf("a create after a restart of a name created before: %v, want ErrAlreadyExists", err)
			}
			got, err := Update(t.Context(), restarted, kind, "c", change(4))
			if err != nil || got.N != 4 || got.Version != 2 {
				t.Fatalf("a change after a restart of a counter created before: %+v, %v; want n 4 at version 2", got, err)
			}

			// Two creates of one new name at the same moment: one wins.
			queued, release := hold(t, mine)
			errs := make(chan error, 2)
			for i := range 2 {
				go func() { _, err := Create(t.Context(), mine, kind, "d", create(10+i)); errs <- err }()
				queued(i + 1)
			}
			release()
			var created, refused int
			for range 2 {
				switch err := <-errs; {
				case err == nil:
					created++
				case errors.Is(err, domain.ErrAlreadyExists):
					refused++
				default:
					t.Fatal(err)
				}
			}
			if created != 1 || refused != 1 || streamEvents(t, store, kind.Stream("d")) != 1 {
				t.Errorf("two creates of one name: %d created, %d refused, %d events; want one of each and one event",
					created, refused, streamEvents(t, store, kind.Stream("d")))
			}
		})
	}
}

// TestAConflictWhoseVersionIsUnknownEndsTheLeadersRedecision: on the
// leader, a write decided on a remembered state and refused by a
// conflict is decided again on the row in the same transaction, unless
// the log could not read the stream's version after the refusal
// (PostgreSQL ended a deadlock with another replica's append: the
// transaction reads nothing more), when the conflict is the answer.
func TestAConflictWhoseVersionIsUnknownEndsTheLeadersRedecision(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"a conflict at a known version", mapConflict(&events.ConflictError{Stream: "s", Expected: 1, Actual: 2}), true},
		{"a conflict at an unknown version", mapConflict(&events.ConflictError{Stream: "s", Expected: 1, Actual: -1}), false},
		{"a conflict that names no version", fmt.Errorf("append s@1: %w", domain.ErrConflict), true},
	} {
		if got := readable(fmt.Errorf("append s@1: %w", c.err)); got != c.want {
			t.Errorf("%s: readable %v, want %v", c.name, got, c.want)
		}
	}
}

package events_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

var pgAt = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// beginAppend begins a transaction on l and appends one event to stream
// at expected, leaving the transaction open.
func beginAppend(t *testing.T, l events.Log, stream string, expected int64) (events.LogTx, events.Record) {
	t.Helper()
	tx, err := l.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tx.Append(t.Context(), stream, expected, events.Metadata{}, pgAt, events.NewEvent{Type: "T", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(errors.Join(err, tx.Rollback()))
	}
	return tx, recs[0]
}

// briefly is a context that ends soon: a read that must wait for an
// append still running gives up with it instead of answering.
func briefly(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

// TestPostgresReadersWaitForAnEarlierPositionStillRunning: a transaction
// holds position p open while another commits p+1. No reader passes p
// while it may still commit: ReadAfter, Head and Query wait (here, until
// their context ends) rather than answer with p+1; once p commits they
// return both, and once it rolls back instead, they step over the gap.
func TestPostgresReadersWaitForAnEarlierPositionStillRunning(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(map[bool]string{true: "commits", false: "rolls back"}[commit], func(t *testing.T) {
			url := pgtest.URL(t)
			a, b := eventstest.OpenPostgres(t, url), eventstest.OpenPostgres(t, url)
			slow, early := beginAppend(t, a, "node/slow", 0)
			fast, late := beginAppend(t, b, "node/fast", 0)
			if late.Position <= early.Position {
				t.Fatalf("positions %d then %d", early.Position, late.Position)
			}
			if err := fast.Commit(); err != nil {
				t.Fatal(err)
			}
			for _, reader := range []events.Log{a, b} {
				if recs, err := reader.ReadAfter(briefly(t), 0, 0); err == nil {
					t.Fatalf("ReadAfter with position %d still running = %v; want it to wait", early.Position, positionsOf(recs))
				}
				if h, err := reader.Head(briefly(t)); err == nil {
					t.Fatalf("Head with position %d still running = %d; want it to wait", early.Position, h)
				}
				if recs, err := reader.Query(briefly(t), events.Filter{After: 0}); err == nil {
					t.Fatalf("Query with position %d still running = %v; want it to wait", early.Position, positionsOf(recs))
				}
			}
			want := []int64{early.Position, late.Position}
			if commit {
				if err := slow.Commit(); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := slow.Rollback(); err != nil {
					t.Fatal(err)
				}
				want = want[1:]
			}
			for _, reader := range []events.Log{a, b} {
				recs, err := reader.ReadAfter(t.Context(), 0, 0)
				if err != nil || fmt.Sprint(positionsOf(recs)) != fmt.Sprint(want) {
					t.Errorf("ReadAfter = %v, %v; want %v", positionsOf(recs), err, want)
				}
				if h, err := reader.Head(t.Context()); err != nil || h != late.Position {
					t.Errorf("Head = %d, %v; want %d", h, err, late.Position)
				}
			}
		})
	}
}

func positionsOf(recs []events.Record) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.Position
	}
	return out
}

// TestPostgresFollowerUnderCommittersThatRollBackOrLinger: writers on
// four handles (four replicas) append at once; some roll back, some hold
// their transaction open while others commit before committing
// themselves. A follower reading all the while never skips a position
// that commits later: at the end it has read every committed event
// exactly once, in position order, and nothing that rolled back.
func TestPostgresFollowerUnderCommittersThatRollBackOrLinger(t *testing.T) {
	url := pgtest.URL(t)
	logs := make([]*events.Postgres, 4)
	for i := range logs {
		logs[i] = eventstest.OpenPostgres(t, url)
	}
	const writers, each = 8, 30
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		committed = map[int64]string{}
		errs      []error
		// commits is closed and replaced at each commit: a lingering
		// writer holds its transaction open until another has committed.
		commits = make(chan struct{})
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for w := range writers {
		l := logs[w%len(logs)]
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			stream := fmt.Sprintf("node/w%d", w)
			var version int64
			for range each {
				tx, err := l.Begin(t.Context())
				if err != nil {
					fail(err)
					return
				}
				recs, err := tx.Append(t.Context(), stream, version, events.Metadata{}, pgAt, events.NewEvent{Type: "T", Payload: []byte(`{}`)})
				if err != nil {
					fail(errors.Join(err, tx.Rollback()))
					return
				}
				switch rng.IntN(4) {
				case 0: // rolls back: its position stays a gap
					if err := tx.Rollback(); err != nil {
						fail(err)
						return
					}
					continue
				case 1: // lingers until another writer has committed
					mu.Lock()
					next := commits
					mu.Unlock()
					select {
					case <-next:
					case <-time.After(2 * time.Second): // the others may all be done
					}
				}
				if err := tx.Commit(); err != nil {
					fail(err)
					return
				}
				version++
				mu.Lock()
				committed[recs[0].Position] = recs[0].ID
				close(commits)
				commits = make(chan struct{})
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	follower := logs[1]
	seen := map[int64]string{}
	var pos int64
	read := func() int {
		recs, err := follower.ReadAfter(t.Context(), pos, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Position <= pos {
				t.Fatalf("the follower read position %d after %d", r.Position, pos)
			}
			if _, ok := seen[r.Position]; ok {
				t.Fatalf("position %d read twice", r.Position)
			}
			pos, seen[r.Position] = r.Position, r.ID
		}
		return len(recs)
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			read()
		}
	}
	// The rest, once every writer is done; nothing before pos can
	// appear any more.
	for read() > 0 {
	}
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	if len(committed) == 0 || len(committed) == writers*each {
		t.Fatalf("%d of %d appends committed: the test wants some rolled back", len(committed), writers*each)
	}
	for p, id := range committed {
		if seen[p] != id {
			t.Errorf("committed position %d (%s) was not read by the follower reading forward", p, id)
		}
	}
	for p := range seen {
		if _, ok := committed[p]; !ok {
			t.Errorf("the follower read position %d, which was not committed", p)
		}
	}
}

// TestPostgresConcurrentAppendsToOneStreamOneWins: appenders on several
// handles append the same next version of one stream at once, round
// after round: in each round exactly one commits, every other gets a
// *events.ConflictError naming the version the stream is at, and the
// stream ends with one event per round.
func TestPostgresConcurrentAppendsToOneStreamOneWins(t *testing.T) {
	url := pgtest.URL(t)
	logs := make([]*events.Postgres, 3)
	for i := range logs {
		logs[i] = eventstest.OpenPostgres(t, url)
	}
	const appenders, rounds = 6, 15
	for v := range int64(rounds) {
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			won      int
			problems []error
		)
		start := make(chan struct{})
		for i := range appenders {
			l := logs[i%len(logs)]
			wg.Go(func() {
				<-start
				tx, err := l.Begin(t.Context())
				if err == nil {
					_, err = tx.Append(t.Context(), "lease/kube-node-lease/n1", v, events.Metadata{}, pgAt,
						events.NewEvent{Type: "LeaseRenewed", Payload: []byte(fmt.Sprintf(`{"by":%d}`, i))})
					if err == nil {
						err = tx.Commit()
					} else {
						err = errors.Join(err, tx.Rollback())
					}
				}
				mu.Lock()
				defer mu.Unlock()
				var conflict *events.ConflictError
				switch {
				case err == nil:
					won++
				case errors.As(err, &conflict):
					if conflict.Expected != v || conflict.Actual != v+1 {
						problems = append(problems, fmt.Errorf("conflict %+v; want expected %d, actual %d", *conflict, v, v+1))
					}
				default:
					problems = append(problems, err)
				}
			})
		}
		close(start)
		wg.Wait()
		if len(problems) > 0 || won != 1 {
			t.Fatalf("round %d: %d won; problems: %v", v, won, errors.Join(problems...))
		}
	}
	recs, err := logs[0].ReadStream(t.Context(), "lease/kube-node-lease/n1", 0)
	if err != nil || len(recs) != rounds {
		t.Fatalf("the stream holds %d events, %v; want %d", len(recs), err, rounds)
	}
}

// TestPostgresAppendThatLosesARaceStoresNothing: an append of two events
// waits for another transaction that stored the first of its versions;
// once that commits, the append is refused as a conflict and stores
// neither event; had that rolled back, the append goes through.
func TestPostgresAppendThatLosesARaceStoresNothing(t *testing.T) {
	for _, first := range []string{"commits", "rolls back"} {
		t.Run(first, func(t *testing.T) {
			url := pgtest.URL(t)
			a, b := eventstest.OpenPostgres(t, url), eventstest.OpenPostgres(t, url)
			tx, _ := beginAppend(t, a, "pod/default/p", 0)
			type result struct {
				recs []events.Record
				err  error
			}
			got := make(chan result, 1)
			other, err := b.Begin(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				recs, err := other.Append(t.Context(), "pod/default/p", 0, events.Metadata{}, pgAt,
					events.NewEvent{Type: "A", Payload: []byte(`{}`)}, events.NewEvent{Type: "B", Payload: []byte(`{}`)})
				got <- result{recs, err}
			}()
			wantStream := 2
			if first == "commits" {
				err, wantStream = tx.Commit(), 1
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
			r := <-got
			var conflict *events.ConflictError
			switch {
			case first == "commits" && !errors.As(r.err, &conflict):
				t.Fatalf("append after a rival committed = %v, %v; want a conflict", positionsOf(r.recs), r.err)
			case first != "commits" && r.err != nil:
				t.Fatalf("append after a rival rolled back: %v", r.err)
			}
			// The transaction stays usable after the refusal.
			if err := other.Commit(); err != nil {
				t.Fatal(err)
			}
			recs, err := a.ReadStream(t.Context(), "pod/default/p", 0)
			if err != nil || len(recs) != wantStream {
				t.Fatalf("the stream holds %d events, %v; want %d", len(recs), err, wantStream)
			}
		})
	}
}

// TestPostgresLogWrittenWithTheHeadRowCarriesOn: a database whose log
// herd wrote with log_head (migrations up to 0006) is brought up to date
// at open: the head is where it was, the next append takes the next
// position, and followers read the old events and the new.
func TestPostgresLogWrittenWithTheHeadRowCarriesOn(t *testing.T) {
	url := pgtest.URL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	old := fstest.MapFS{}
	err = fs.WalkDir(events.PostgresMigrations(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path >= "0007" {
			return err
		}
		b, err := fs.ReadFile(events.PostgresMigrations(), path)
		old[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := old["0006_audit_indexes.sql"]; !ok || len(old) != 6 {
		t.Fatalf("the earlier migrations: %d files", len(old))
	}
	if err := events.MigratePostgres(t.Context(), db, "events", old); err != nil {
		t.Fatal(err)
	}
	// As the earlier herd appended: the head row moved, then the rows
	// inserted at its positions; position 3 was deleted by compaction.
	for _, p := range []int64{1, 2, 4} {
		if _, err := db.ExecContext(t.Context(), `INSERT INTO events (position, event_id, stream, version, type, schema_version, recorded_at, payload)
VALUES ($1, gen_random_uuid(), 'node/old', $1, 'T', 1, 0, '\x7b7d')`, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(t.Context(), `UPDATE log_head SET position = 4`); err != nil {
		t.Fatal(err)
	}

	l := eventstest.OpenPostgres(t, url)
	if h, err := l.Head(t.Context()); err != nil || h != 4 {
		t.Fatalf("head after the migration = %d, %v; want 4", h, err)
	}
	if p := appendOnePG(t, l, "node/old", 4, pgAt); p != 5 {
		t.Fatalf("first append after the migration at position %d; want 5", p)
	}
	recs, err := l.ReadAfter(t.Context(), 0, 0)
	if err != nil || fmt.Sprint(positionsOf(recs)) != "[1 2 4 5]" {
		t.Fatalf("ReadAfter(0) = %v, %v; want [1 2 4 5]", positionsOf(recs), err)
	}
	// Lists read the head from the log_head view, as before.
	var viewHead int64
	if err := db.QueryRowContext(t.Context(), `SELECT position FROM log_head WHERE id = 1`).Scan(&viewHead); err != nil || viewHead != 5 {
		t.Fatalf("log_head after a read = %d, %v; want 5", viewHead, err)
	}
}

// TestPostgresCrossedAppendsEndInConflicts: two replicas' transactions
// each append to one stream, then to the other's: each waits for the
// other, PostgreSQL ends the cycle by failing one of the two appends,
// and that append is refused as a conflict (its caller decides again),
// not a failure of the database. The transaction rolls back to its
// savepoint and commits what it had; the other append then finds its
// version taken and is refused as well.
func TestPostgresCrossedAppendsEndInConflicts(t *testing.T) {
	url := pgtest.URL(t)
	a, b := eventstest.OpenPostgres(t, url), eventstest.OpenPostgres(t, url)
	txA, _ := beginAppend(t, a, "node/x", 0)
	txB, _ := beginAppend(t, b, "node/y", 0)
	second := func(tx events.LogTx, stream string, out chan<- error) {
		if err := tx.Savepoint(t.Context()); err != nil {
			out <- err
			return
		}
		_, err := tx.Append(t.Context(), stream, 0, events.Metadata{}, pgAt, events.NewEvent{Type: "T", Payload: []byte(`{}`)})
		if err != nil {
			err = errors.Join(err, tx.RollbackToSavepoint(t.Context()), tx.Commit())
		}
		out <- err
	}
	errA, errB := make(chan error, 1), make(chan error, 1)
	go second(txA, "node/y", errA)
	go second(txB, "node/x", errB)
	for _, ch := range []chan error{errA, errB} {
		var conflict *events.ConflictError
		if err := <-ch; !errors.As(err, &conflict) {
			t.Fatalf("crossed append: %v; want a *events.ConflictError", err)
		}
	}
	for _, s := range []string{"node/x", "node/y"} {
		if recs, err := a.ReadStream(t.Context(), s, 0); err != nil || len(recs) != 1 {
			t.Errorf("%s holds %d events, %v; want 1", s, len(recs), err)
		}
	}
}

// TestPostgresAppendAfterARolledBackSavepointIsWaitedFor: a transaction
// appends in a savepoint it rolls back, then appends again and stays
// open while another commits a later position: readers still wait for
// it, although what it did first in the savepoint was undone.
func TestPostgresAppendAfterARolledBackSavepointIsWaitedFor(t *testing.T) {
	url := pgtest.URL(t)
	a, b := eventstest.OpenPostgres(t, url), eventstest.OpenPostgres(t, url)
	tx, err := a.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	appendIn := func(stream string) events.Record {
		recs, err := tx.Append(t.Context(), stream, 0, events.Metadata{}, pgAt, events.NewEvent{Type: "T", Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return recs[0]
	}
	if err := tx.Savepoint(t.Context()); err != nil {
		t.Fatal(err)
	}
	appendIn("node/undone")
	if err := tx.RollbackToSavepoint(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := tx.ReleaseSavepoint(t.Context()); err != nil {
		t.Fatal(err)
	}
	held := appendIn("node/held")
	late := appendOnePG(t, b, "node/late", 0, pgAt)
	if recs, err := b.ReadAfter(briefly(t), 0, 0); err == nil {
		t.Fatalf("ReadAfter with position %d still running = %v; want it to wait", held.Position, positionsOf(recs))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	recs, err := b.ReadAfter(t.Context(), 0, 0)
	if want := fmt.Sprint([]int64{held.Position, late}); err != nil || fmt.Sprint(positionsOf(recs)) != want {
		t.Fatalf("ReadAfter = %v, %v; want %s", positionsOf(recs), err, want)
	}
}

// TestPostgresTransactionsThatAppendNothingDoNotHoldReaders: a
// transaction that wrote elsewhere in herd's database and stays open (a
// rebuild of the views, an operator's psql session) does not hold back
// Head or ReadAfter: only appenders are waited for.
func TestPostgresTransactionsThatAppendNothingDoNotHoldReaders(t *testing.T) {
	url := pgtest.URL(t)
	l := eventstest.OpenPostgres(t, url)
	p := appendOnePG(t, l, "node/a", 0, pgAt)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	other, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Rollback() }()
	if _, err := other.ExecContext(t.Context(), `CREATE TABLE scratch (n int); INSERT INTO scratch VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if h, err := l.Head(ctx); err != nil || h != p {
		t.Fatalf("Head beside an open transaction that appends nothing = %d, %v; want %d", h, err, p)
	}
	if recs, err := l.ReadAfter(ctx, 0, 0); err != nil || len(recs) != 1 {
		t.Fatalf("ReadAfter beside an open transaction that appends nothing = %v, %v", positionsOf(recs), err)
	}
}

// TestPostgresLogHeadViewAgreesWithTheStatementsSnapshot: log_head, the
// head that statements reading views join (a list and its
// resourceVersion), never names a position whose event the statement's
// snapshot misses: a statement whose snapshot was taken while an append
// was running, which then committed, gets a head before that append's
// position, although a later position committed before the snapshot.
func TestPostgresLogHeadViewAgreesWithTheStatementsSnapshot(t *testing.T) {
	url := pgtest.URL(t)
	a, b := eventstest.OpenPostgres(t, url), eventstest.OpenPostgres(t, url)
	before := appendOnePG(t, a, "node/before", 0, pgAt)
	slow, early := beginAppend(t, a, "node/slow", 0)
	late := appendOnePG(t, b, "node/late", 0, pgAt)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	// gate holds the reading statement after it took its snapshot and
	// before it reads log_head.
	gate, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = gate.Close() }()
	if _, err := gate.ExecContext(t.Context(), `SELECT pg_advisory_lock(42)`); err != nil {
		t.Fatal(err)
	}
	type result struct {
		head int64
		err  error
	}
	got := make(chan result, 1)
	go func() {
		var r result
		r.err = db.QueryRowContext(t.Context(), `WITH x AS MATERIALIZED (SELECT 1 AS one, pg_advisory_lock_shared(42) AS gate)
SELECT (SELECT h.position FROM log_head h WHERE h.id = x.one) FROM x`).Scan(&r.head)
		got <- r
	}()
	eventstest.Eventually(t, 10*time.Second, func() bool {
		var waiting bool
		err := db.QueryRowContext(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 42 AND NOT granted)`).Scan(&waiting)
		return err == nil && waiting
	}, "the reading statement waits at the gate")
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := gate.ExecContext(t.Context(), `SELECT pg_advisory_unlock(42)`); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil || r.head >= early.Position || r.head < before {
		t.Fatalf("log_head in a snapshot without position %d (committed since; %d committed before it) = %d, %v; want %d to %d",
			early.Position, late, r.head, r.err, before, early.Position-1)
	}
	var head int64
	if err := db.QueryRowContext(t.Context(), `SELECT position FROM log_head WHERE id = 1`).Scan(&head); err != nil || head != late {
		t.Fatalf("log_head now = %d, %v; want %d", head, err, late)
	}
}

// TestPostgresLogHeadIsAnEventNotAGap: an append that rolls back leaves
// its position without an event, and a reader that found that position
// final keeps it as the horizon the views' reads start from. The head
// those reads give (log_head) is still the newest event, as Head's is:
// a list's resourceVersion that named the gap was one no follower of
// the log ever reaches, and a replica's watch cache, which reads the
// log up to the views' head as it starts, gave up starting.
func TestPostgresLogHeadIsAnEventNotAGap(t *testing.T) {
	url := pgtest.URL(t)
	l := eventstest.OpenPostgres(t, url)
	last := appendOnePG(t, l, "node/kept", 0, pgAt)
	tx, gap := beginAppend(t, l, "node/undone", 0)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if gap.Position <= last {
		t.Fatalf("the undone append took %d, after %d", gap.Position, last)
	}
	// A reader finds the gap final and keeps it as the horizon.
	if h, err := l.Head(t.Context()); err != nil || h != last {
		t.Fatalf("Head = %d, %v; want %d", h, err, last)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	var horizon, head int64
	if err := db.QueryRowContext(t.Context(), `SELECT position FROM log_horizon WHERE id = 1`).Scan(&horizon); err != nil || horizon != gap.Position {
		t.Fatalf("log_horizon = %d, %v; want the gap %d a reader found final", horizon, err, gap.Position)
	}
	if err := db.QueryRowContext(t.Context(), `SELECT position FROM log_head WHERE id = 1`).Scan(&head); err != nil || head != last {
		t.Fatalf("log_head = %d, %v; want %d, the newest event (Head's), not the gap %d after it", head, err, last, gap.Position)
	}
}

// TestPostgresReadersStopAtTheEndOfATransaction: writers on several
// handles append writes of many events each, and a reader reads all the
// while. A reader's head may fall while a write's insert is still taking
// its positions; it must not then stop inside that write. Every batch
// ReadAfter returns, every Head and every log_head (the views' lists'
// resourceVersion) ends where a transaction ends: no
// committed transaction has events both at or before it and after it, so
// a reader never sees half of one write.
func TestPostgresReadersStopAtTheEndOfATransaction(t *testing.T) {
	url := pgtest.URL(t)
	logs := make([]*events.Postgres, 3)
	for i := range logs {
		logs[i] = eventstest.OpenPostgres(t, url)
	}
	const writers, each, size = 6, 25, 300
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		txns [][2]int64 // the first and last position of each committed write
		errs []error
	)
	batch := make([]events.NewEvent, size)
	for i := range batch {
		batch[i] = events.NewEvent{Type: "T", Payload: []byte(`{}`)}
	}
	for w := range writers {
		l := logs[w%len(logs)]
		wg.Go(func() {
			stream := fmt.Sprintf("node/w%d", w)
			for n := range each {
				tx, err := l.Begin(t.Context())
				var recs []events.Record
				if err == nil {
					recs, err = tx.Append(t.Context(), stream, int64(n*size), events.Metadata{}, pgAt, batch...)
					if err == nil {
						err = tx.Commit()
					} else {
						err = errors.Join(err, tx.Rollback())
					}
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				first, last := recs[0].Position, recs[0].Position
				for _, r := range recs {
					first, last = min(first, r.Position), max(last, r.Position)
				}
				mu.Lock()
				txns = append(txns, [2]int64{first, last})
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	reader := logs[0]
	var pos int64
	var ends []int64 // where each batch, each head and each log_head ended
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		recs, err := reader.ReadAfter(t.Context(), pos, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > 0 {
			pos = recs[len(recs)-1].Position
			ends = append(ends, pos)
		}
		h, err := reader.Head(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, h)
		if err := db.QueryRowContext(t.Context(), `SELECT position FROM log_head WHERE id = 1`).Scan(&h); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, h)
	}
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	split := 0
	for _, end := range ends {
		for _, tx := range txns {
			if tx[0] <= end && end < tx[1] {
				if split < 5 {
					t.Errorf("a read ended at position %d, inside the write of positions %d to %d", end, tx[0], tx[1])
				}
				split++
			}
		}
	}
	if split > 0 {
		t.Errorf("%d times a read ended inside a write, in %d reads", split, len(ends))
	}
}

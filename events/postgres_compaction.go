package events

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// On PostgreSQL the compaction record is the database's, shared by every
// replica (log_compaction, postgres_migrations/0004_compaction.sql), and
// each replica keeps a copy in memory, since every watch and list checks
// it:
//
//   - the deleting transaction updates the row and announces it on
//     compactionChannel, which PostgreSQL delivers, to every replica's
//     listening connection, only once the transaction commits;
//   - a replica reads the row when it opens the log, each time its
//     listening connection is made again (it may have missed an
//     announcement meanwhile), and every compactionRefresh in any case.
//
// The replica that deletes raises its own point before the deletion
// commits (RaiseCompactionPoint). Another replica learns of it a little
// after the commit: normally within milliseconds, as it learns of
// commits; at worst, when its listening connection is down, once it is
// made again or at the next read of the row, within compactionRefresh.
// Until then that replica serves a watch, or an exact list, from a
// position before the point with the thinned history — the superseded
// heartbeats missing, the state at each position it shows still right,
// since a later heartbeat sets all that a deleted one set — rather than
// refusing it with 410 Expired.

// compactionChannel is the channel a deletion announces the new
// log_compaction row on; the payload is compactionRow.payload.
const compactionChannel = "herd_compaction"

// compactionRefresh is how often a replica reads the log_compaction row
// whatever it heard: the longest a replica whose listening connection
// broke can go on serving thinned history from before the compaction
// point (see above). As often as the retention's default round
// (projections.CompactionConfig.Interval); one tiny read per replica.
const compactionRefresh = 10 * time.Second

// pgRecordCompaction moves log_compaction on by one deletion, as
// Store.DeleteEvents does on SQLite.
const pgRecordCompaction = `UPDATE log_compaction SET through = GREATEST(through, $1), before = GREATEST(before, $2),
deleted = deleted + $3, thinned_at = $4 WHERE id = 1 RETURNING through, before, deleted, thinned_at`

// The compaction's reads in PostgreSQL's placeholders.
var (
	pgFirstRecordedQuery = pgDialect.Bind(firstRecordedQuery)
	pgReadTypeQuery      = pgDialect.Bind(readTypeQuery)
)

var _ Compactable = (*Postgres)(nil)

// Compaction is how far the retention policy has thinned the log, as
// this replica has heard: the replicas sharing the database learn of a
// deletion a little after it commits (see postgres_compaction.go).
func (p *Postgres) Compaction() Compaction { return p.compaction.get() }

// RaiseCompactionPoint moves this replica's compaction point to through
// before a deletion relying on it commits; see Compactable.
func (p *Postgres) RaiseCompactionPoint(through int64) { p.compaction.raise(through) }

// Compacted records the row DeleteEvents returned once its transaction
// committed; the other replicas hear of it from the transaction's
// announcement.
func (p *Postgres) Compacted(c Compaction) { p.compaction.learn(c) }

// FirstRecordedAt returns the position of the earliest event recorded at
// or after t, or the head plus one; see Compactable.
func (p *Postgres) FirstRecordedAt(ctx context.Context, t time.Time) (int64, error) {
	return firstRecordedAt(ctx, p.db, pgFirstRecordedQuery, t, func() (int64, error) { return p.Head(ctx) })
}

// ReadTypeRange returns up to limit events of type typ in (after,
// before), without their ids and metadata.
func (p *Postgres) ReadTypeRange(ctx context.Context, typ string, after, before int64, limit int) ([]Record, error) {
	return readTypeRange(ctx, p.db, pgReadTypeQuery, typ, after, before, limit)
}

// DeleteEvents deletes d's events inside tx, moves the log_compaction
// row on by them and announces the row to the replicas, all in tx; see
// Compactable.
func (p *Postgres) DeleteEvents(ctx context.Context, tx LogTx, d Deletion) (Compaction, error) {
	t, ok := tx.(*postgresTx)
	if !ok || t.p != p {
		return Compaction{}, errors.New("delete events: the transaction is not this log's")
	}
	if len(d.Positions) == 0 {
		return p.Compaction(), nil
	}
	t.deleted = true
	// The compaction record is locked first: a snapshot being saved
	// reads it with a share lock, so it is either saved before this
	// deletion drops what it makes untrue, or sees its compaction point.
	if _, err := t.tx.ExecContext(ctx, `SELECT through FROM log_compaction WHERE id = 1 FOR UPDATE`); err != nil {
		return Compaction{}, fmt.Errorf("lock the compaction record: %w", err)
	}
	if _, err := t.tx.ExecContext(ctx, pgInvalidateSnapshotsSQL, d.Positions, d.Through); err != nil {
		return Compaction{}, fmt.Errorf("drop the snapshots %d deletions make untrue: %w", len(d.Positions), err)
	}
	r, err := deleteAndRecord(ctx, t.tx, d, `DELETE FROM events WHERE position = ANY($1)`, []any{d.Positions}, pgRecordCompaction)
	if err != nil {
		return Compaction{}, err
	}
	if _, err := t.tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, compactionChannel, r.payload()); err != nil {
		return Compaction{}, fmt.Errorf("announce compaction: %w", err)
	}
	return r.compaction(), nil
}

// payload is the row as compactionChannel carries it: its four numbers.
func (r compactionRow) payload() string {
	return fmt.Sprintf("%d %d %d %d", r.through, r.before, r.deleted, r.at)
}

// parseCompactionPayload reads a payload of compactionChannel.
func parseCompactionPayload(s string) (Compaction, bool) {
	var r compactionRow
	if n, err := fmt.Sscanf(s, "%d %d %d %d", &r.through, &r.before, &r.deleted, &r.at); err != nil || n != 4 {
		return Compaction{}, false
	}
	return r.compaction(), true
}

// loadCompaction reads the log_compaction row into memory.
func (p *Postgres) loadCompaction(ctx context.Context) error {
	c, err := readCompaction(ctx, p.db)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	p.compaction.learn(c)
	return nil
}

// refreshCompaction reads the log_compaction row every compactionRefresh
// until ctx ends: the backstop for an announcement missed. A failed read
// waits for the next.
func (p *Postgres) refreshCompaction(ctx context.Context) {
	defer p.listening.Done()
	tick := time.NewTicker(compactionRefresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		_ = p.loadCompaction(ctx)
	}
}

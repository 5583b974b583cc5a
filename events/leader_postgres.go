package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// On PostgreSQL a replica leads a job while its session holds the job's
// advisory lock (pg_try_advisory_lock, session-level), on a connection
// of its own rather than the pool's: PostgreSQL frees a session's locks
// when the session ends, however it ends, so a leader that dies hands
// the job on without anyone having to notice or clean up. The session
// must be a real one: behind a pooler in transaction mode (PgBouncer's
// pool_mode=transaction) a session lock means nothing.
//
// Who leads is written beside the lock, in leaders
// (postgres_migrations/0003_leaders.sql: the replica's name, its
// session's backend pid and since when), and believed only while that
// backend still holds the lock (pg_locks): a dead leader's row is stale,
// not wrong.
//
// How fast the lock moves on:
//   - a leader process that is killed, its host alive: at once, since the
//     kernel closes its connection and the backend ends;
//   - a leader whose host died or whose network is cut: PostgreSQL ends
//     the session leaderKeepalives after the last packet from it (8 s);
//   - a leader that loses its session notices within leaderPingInterval +
//     leaderPingTimeout (4 s), closes the connection and gives the job up.
//
// A replica that does not lead tries again every two seconds or so (its
// caller's loop), so another replica takes over within about ten seconds
// of a leader's death. Cut off from the database, the leader gives up
// before PostgreSQL lets another replica have the lock (4 s against 8 s),
// so two replicas do not run the job at once beyond the work already
// under way when the leader noticed. (An operator who ends the leader's
// session, pg_terminate_backend, frees the lock at once; the leader
// notices at its next ping.)

const (
	// leaderPingInterval is how often a replica checks the session that
	// holds its locks.
	leaderPingInterval = 2 * time.Second
	// leaderPingTimeout bounds one check, and a release.
	leaderPingTimeout = 2 * time.Second
	// leaderTryTimeout bounds one TryLead, opening the session included:
	// a database that does not answer must not hold the session's lock
	// (and its pings) for as long as the kernel would wait.
	leaderTryTimeout = 10 * time.Second
)

// leaderKeepalives are the session's TCP keepalives on the server's side:
// PostgreSQL probes a silent leader after 5 s and ends its session, which
// frees its locks, after 3 unanswered probes a second apart — 8 s after
// the last packet, later than the leader gives up by itself (above).
// PostgreSQL's default is the kernel's, two hours on Linux. The leader's
// own pings keep a live session from ever being probed. (On a Unix socket
// they do nothing, and need not: a dead peer there is a dead process.)
const leaderKeepalives = `SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3`

const (
	recordLeader = `INSERT INTO leaders (job, replica, backend_pid, since) VALUES ($1, $2, pg_backend_pid(), now())
ON CONFLICT (job) DO UPDATE SET replica = excluded.replica, backend_pid = excluded.backend_pid, since = excluded.since`
	releaseLeader = `WITH gone AS (DELETE FROM leaders WHERE job = $1 AND backend_pid = pg_backend_pid())
SELECT pg_advisory_unlock($2)`
	// whoLeads reads the row only while its backend holds the job's lock.
	// A bigint advisory key shows in pg_locks as its high 32 bits
	// (classid) and its low 32 bits (objid), with objsubid 1.
	whoLeads = `SELECT l.replica, l.since, l.backend_pid FROM leaders l
WHERE l.job = $1 AND EXISTS (
    SELECT 1 FROM pg_locks k
    WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid
      AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND k.classid::bigint = $2 AND k.objid::bigint = $3 AND k.objsubid = 1)`
)

// leaderKey is job's advisory lock key: 64 bits of FNV-1a over a prefix
// and the name, so that herd's keys are unlikely to meet another
// application's in the same database.
func leaderKey(job string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("herd leader "))
	_, _ = h.Write([]byte(job))
	return int64(h.Sum64())
}

// Leadership elects leaders among the replicas sharing this database by
// advisory locks, held on one session of this replica's for all its
// jobs. Closing the log ends every term.
func (p *Postgres) Leadership(cfg LeadershipConfig) Leadership {
	cfg.setDefaults()
	l := &postgresLeadership{p: p, cfg: cfg, terms: map[string]*postgresTerm{}}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		l.closed = true
	} else {
		p.leaderships = append(p.leaderships, l)
	}
	return l
}

type postgresLeadership struct {
	p   *Postgres
	cfg LeadershipConfig
	// pid is the session's backend pid, 0 without one: whether a leader
	// Leader reads is this replica.
	pid atomic.Uint32

	// mu guards the session and the terms held on it: a pgx.Conn serves
	// one caller at a time.
	mu       sync.Mutex
	closed   bool
	conn     *pgx.Conn // nil before the first TryLead and after a failure
	terms    map[string]*postgresTerm
	stopPing chan struct{}
	pinging  sync.WaitGroup
}

type postgresTerm struct {
	l    *postgresLeadership
	job  string
	lost chan struct{}
}

func (l *postgresLeadership) TryLead(ctx context.Context, job string) (Term, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return nil, errStoreClosed
	case l.terms[job] != nil:
		return nil, errLeadingAlready(job)
	}
	ctx, cancel := context.WithTimeout(ctx, leaderTryTimeout)
	defer cancel()
	if l.conn == nil {
		if err := l.connect(ctx); err != nil {
			return nil, fmt.Errorf("postgres: lead %s: %w", job, err)
		}
	}
	var ok bool
	if err := l.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, leaderKey(job)).Scan(&ok); err != nil {
		return nil, l.failed(job, err)
	}
	if !ok {
		return nil, ErrLedElsewhere
	}
	if _, err := l.conn.Exec(ctx, recordLeader, job, l.cfg.Replica); err != nil {
		err = l.failed(job, err)
		if l.conn != nil {
			if _, uerr := l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, leaderKey(job)); uerr != nil {
				l.drop() // the lock goes with the session
			}
		}
		return nil, err
	}
	t := &postgresTerm{l: l, job: job, lost: make(chan struct{})}
	l.terms[job] = t
	return t, nil
}

// failed is err, met on the session while leading job; a session the
// error broke is dropped.
func (l *postgresLeadership) failed(job string, err error) error {
	if l.conn != nil && l.conn.IsClosed() {
		l.drop()
	}
	return fmt.Errorf("postgres: lead %s: %w", job, err)
}

// connect opens the session, with its keepalives, and starts pinging it.
func (l *postgresLeadership) connect(ctx context.Context) error {
	cfg := l.p.connConfig.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	// For whoever looks at pg_stat_activity; PostgreSQL cuts it at 63 bytes.
	cfg.RuntimeParams["application_name"] = "herd leader " + l.cfg.Replica
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, leaderKeepalives); err != nil {
		_ = conn.Close(context.Background())
		return err
	}
	l.conn = conn
	l.pid.Store(conn.PgConn().PID())
	stop := make(chan struct{})
	l.stopPing = stop
	l.pinging.Go(func() { l.ping(conn, stop) })
	return nil
}

// ping checks conn every leaderPingInterval until stop closes, and drops
// it the first time it does not answer in time.
func (l *postgresLeadership) ping(conn *pgx.Conn, stop <-chan struct{}) {
	tick := time.NewTicker(leaderPingInterval)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		if l.conn == conn {
			ctx, cancel := context.WithTimeout(context.Background(), leaderPingTimeout)
			if err := conn.Ping(ctx); err != nil {
				l.drop()
			}
			cancel()
		}
		l.mu.Unlock()
	}
}

// drop closes the session, with l.mu held. Every term held on it is lost:
// PostgreSQL frees the locks of a session that ends.
func (l *postgresLeadership) drop() {
	if l.conn == nil {
		return
	}
	close(l.stopPing)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_ = l.conn.Close(ctx)
	cancel()
	l.conn = nil
	l.pid.Store(0)
	for job, t := range l.terms {
		delete(l.terms, job)
		close(t.lost)
	}
}

// close ends every term and the session for good: the log is closing.
func (l *postgresLeadership) close() {
	l.mu.Lock()
	l.closed = true
	l.drop()
	l.mu.Unlock()
	l.pinging.Wait()
}

func (l *postgresLeadership) Leader(ctx context.Context, job string) (Leader, bool, error) {
	key := uint64(leaderKey(job))
	var (
		ld  Leader
		pid int64
	)
	err := l.p.db.QueryRowContext(ctx, whoLeads, job, int64(key>>32), int64(key&0xffffffff)).Scan(&ld.Replica, &ld.Since, &pid)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Leader{}, false, nil
	case err != nil:
		return Leader{}, false, fmt.Errorf("postgres: who leads %s: %w", job, err)
	}
	own := l.pid.Load()
	ld.Self = own != 0 && int64(own) == pid
	return ld, true, nil
}

func (t *postgresTerm) Lost() <-chan struct{} { return t.lost }

func (t *postgresTerm) Release() error {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.terms[t.job] != t {
		return nil // lost already
	}
	delete(l.terms, t.job)
	close(t.lost)
	ctx, cancel := context.WithTimeout(context.Background(), leaderPingTimeout)
	defer cancel()
	if _, err := l.conn.Exec(ctx, releaseLeader, t.job, leaderKey(t.job)); err != nil {
		l.drop() // the lock goes with the session
		return fmt.Errorf("postgres: release %s: %w", t.job, err)
	}
	return nil
}

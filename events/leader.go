package events

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Leadership elects, among the herd processes that share a log, the one
// replica that runs a job (the reconcilers, the retention policy): a job
// run by two replicas at once would act twice on every event. A job is a
// name, compared byte by byte.
//
// On SQLite herd serve is the log's only writer (its data directory is
// locked), so it leads every job at once (LeadershipOf). On PostgreSQL a
// replica leads a job while it holds a session-level advisory lock on a
// connection of its own; see Postgres.Leadership.
type Leadership interface {
	// TryLead makes this replica the leader of job, if no replica leads
	// it, and returns its term; ErrLedElsewhere when another one does.
	// It does not wait: whoever wants to lead asks again now and then.
	TryLead(ctx context.Context, job string) (Term, error)
	// Leader says which replica leads job now; ok is false when none
	// does, as far as the database knows (the leader died and no replica
	// has taken over yet).
	Leader(ctx context.Context, job string) (leader Leader, ok bool, err error)
}

// Term is one replica's time at the head of a job.
type Term interface {
	// Lost is closed once this replica no longer leads the job: its term
	// was released, its session with the database failed, or the log
	// closed. Whoever does the job stops as soon as it is.
	Lost() <-chan struct{}
	// Release ends the term, so that another replica may lead at once.
	// Releasing a term that is over does nothing.
	Release() error
}

// Leader is the replica that leads a job.
type Leader struct {
	// Replica names it (LeadershipConfig.Replica).
	Replica string
	// Since is when its term began, on the database's clock.
	Since time.Time
	// Self reports whether it is the replica that asked.
	Self bool
}

// ErrLedElsewhere is TryLead's answer when another replica leads the job.
var ErrLedElsewhere = errors.New("events: another replica leads the job")

// errLeadingAlready is TryLead's answer for a job this Leadership leads
// already: two terms of one replica would not exclude each other.
func errLeadingAlready(job string) error {
	return fmt.Errorf("events: lead %s: this replica leads it already", job)
}

// LeadershipConfig says who this replica is to the others.
type LeadershipConfig struct {
	// Replica names this herd process in Leader's answers, in /readyz and,
	// on PostgreSQL, in pg_stat_activity's application_name of the
	// session that holds its locks. Give every replica its own. Default:
	// host name and pid ("web-1:4242").
	Replica string
	// Now tells when a term began where the database does not keep the
	// time (SQLite). Default: time.Now.
	Now func() time.Time
}

func (c *LeadershipConfig) setDefaults() {
	if c.Replica == "" {
		c.Replica = DefaultReplica()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// DefaultReplica names this process: its host name and pid.
func DefaultReplica() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// LeadershipOf is how the replicas sharing l elect their leaders: on
// PostgreSQL by advisory locks (Postgres.Leadership), elsewhere (SQLite,
// which herd serve alone writes) by leading at once (SoleLeadership).
func LeadershipOf(l Log, cfg LeadershipConfig) Leadership {
	if p, ok := l.(*Postgres); ok {
		return p.Leadership(cfg)
	}
	return SoleLeadership(cfg)
}

package events

import (
	"context"
	"sync"
	"time"
)

// SoleLeadership is the Leadership of a process that has no one to
// share its jobs with: herd serve on SQLite, whose data directory it
// alone holds. TryLead leads at once; a term ends only when it is
// released. Within the process a job still has one leader at a time.
func SoleLeadership(cfg LeadershipConfig) Leadership {
	cfg.setDefaults()
	return &soleLeadership{cfg: cfg, terms: map[string]*soleTerm{}}
}

type soleLeadership struct {
	cfg LeadershipConfig

	mu    sync.Mutex
	terms map[string]*soleTerm
}

type soleTerm struct {
	l     *soleLeadership
	job   string
	since time.Time
	lost  chan struct{}
}

func (l *soleLeadership) TryLead(_ context.Context, job string) (Term, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.terms[job] != nil {
		return nil, errLeadingAlready(job)
	}
	t := &soleTerm{l: l, job: job, since: l.cfg.Now(), lost: make(chan struct{})}
	l.terms[job] = t
	return t, nil
}

func (l *soleLeadership) Leader(_ context.Context, job string) (Leader, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.terms[job]
	if t == nil {
		return Leader{}, false, nil
	}
	return Leader{Replica: l.cfg.Replica, Since: t.since, Self: true}, true, nil
}

func (t *soleTerm) Lost() <-chan struct{} { return t.lost }

func (t *soleTerm) Release() error {
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	if t.l.terms[t.job] == t {
		delete(t.l.terms, t.job)
		close(t.lost)
	}
	return nil
}

package loadgen

import (
	"errors"
	"maps"
	"strconv"
	"sync"
	"time"
)

// outcome is one request's result: the HTTP status (0 when no answer
// came) and the error, if any.
type outcome struct {
	status int
	err    error
	// contentType is a 2xx answer's Content-Type.
	contentType string
	// retryAfter is what a 429 or 503 said to wait (its Retry-After).
	retryAfter time.Duration
	// queued is how long the request waited for one of the run's
	// connections before it was sent (exchange), left out of its latency.
	queued time.Duration
}

// acknowledged is true when herd answered 2xx.
func (o outcome) acknowledged() bool { return o.status >= 200 && o.status < 300 && o.err == nil }

// key names the outcome in the refusals table: the status code, or
// "transport" when herd did not answer.
func (o outcome) key() string {
	if o.status == 0 {
		return "transport"
	}
	return strconv.Itoa(o.status)
}

// stats is what one worker saw in one phase; merged once the phase ends.
// Its paced turns record into it at once (record, recordKind and skip
// take mu); lag is the worker's own.
type stats struct {
	mu          sync.Mutex
	sent, acked uint64
	// skipped counts paced turns not taken because the node's previous
	// turn was still running.
	skipped uint64
	latency histogram
	errors  map[string]uint64
	// firstError is one error message, so that a run that failed says
	// why.
	firstError error
	// lag is how late each scheduled turn began, behind its due time:
	// the load generator falling behind its own schedule.
	lag histogram
	// kinds break the requests down by what was sent, for a client whose
	// turns send more than one kind (the kubelet with --lease).
	kinds map[string]*stats
}

func (s *stats) record(o outcome, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(o, took)
}

// skip counts a paced turn not taken.
func (s *stats) skip() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skipped++
}

// add counts o, which took took from the moment it was asked for; the
// caller holds mu.
func (s *stats) add(o outcome, took time.Duration) {
	took -= o.queued
	s.sent++
	if o.acknowledged() {
		s.acked++
		s.latency.record(took)
		return
	}
	if s.errors == nil {
		s.errors = map[string]uint64{}
	}
	s.errors[o.key()]++
	if s.firstError == nil {
		s.firstError = o.err
		if s.firstError == nil {
			s.firstError = errors.New("HTTP " + o.key())
		}
	}
}

// recordKind records a request of one kind, in the total and in its
// kind's own count.
func (s *stats) recordKind(kind string, o outcome, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(o, took)
	s.kind(kind).add(o, took)
}

// kind is the count of one kind of request, made on first use.
func (s *stats) kind(name string) *stats {
	if s.kinds == nil {
		s.kinds = map[string]*stats{}
	}
	k := s.kinds[name]
	if k == nil {
		k = &stats{}
		s.kinds[name] = k
	}
	return k
}

func (s *stats) merge(o *stats) {
	s.sent += o.sent
	s.acked += o.acked
	s.skipped += o.skipped
	s.latency.merge(&o.latency)
	s.lag.merge(&o.lag)
	for name, k := range o.kinds {
		s.kind(name).merge(k)
	}
	if len(o.errors) > 0 && s.errors == nil {
		s.errors = map[string]uint64{}
	}
	for k, n := range o.errors {
		s.errors[k] += n
	}
	if s.firstError == nil {
		s.firstError = o.firstError
	}
}

// phase is the report of a phase that took elapsed.
func (s *stats) phase(elapsed time.Duration) Phase {
	p := Phase{Requests: s.sent, Acknowledged: s.acked, Seconds: elapsed.Seconds(), Errors: maps.Clone(s.errors), TurnsSkipped: s.skipped}
	if elapsed > 0 {
		p.PerSecond = float64(s.acked) / elapsed.Seconds()
	}
	p.Latency = s.latency.summary()
	p.ScheduleLag = s.lag.summary()
	if len(s.kinds) > 0 {
		p.Kinds = make(map[string]Phase, len(s.kinds))
		for kind, k := range s.kinds {
			p.Kinds[kind] = k.phase(elapsed)
		}
	}
	if s.firstError != nil {
		p.FirstError = s.firstError.Error()
	}
	return p
}

// summary is the histogram's p50, p99 and maximum; nil when it is empty.
func (h *histogram) summary() *Latency {
	if h.total == 0 {
		return nil
	}
	return &Latency{P50: ms(h.quantile(0.50)), P99: ms(h.quantile(0.99)), Max: ms(h.max)}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

package loadgen

import (
	"errors"
	"maps"
	"strconv"
	"time"
)

// outcome is one request's result: the HTTP status (0 when no answer
// came) and the error, if any.
type outcome struct {
	status int
	err    error
	// contentType is a 2xx answer's Content-Type.
	contentType string
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
type stats struct {
	sent, acked uint64
	latency     histogram
	errors      map[string]uint64
	// firstError is one error message, so that a run that failed says
	// why.
	firstError error
}

func (s *stats) record(o outcome, took time.Duration) {
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

func (s *stats) merge(o *stats) {
	s.sent += o.sent
	s.acked += o.acked
	s.latency.merge(&o.latency)
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
	p := Phase{Requests: s.sent, Acknowledged: s.acked, Seconds: elapsed.Seconds(), Errors: maps.Clone(s.errors)}
	if elapsed > 0 {
		p.PerSecond = float64(s.acked) / elapsed.Seconds()
	}
	if s.latency.total > 0 {
		p.Latency = &Latency{
			P50: ms(s.latency.quantile(0.50)), P99: ms(s.latency.quantile(0.99)), Max: ms(s.latency.max),
		}
	}
	if s.firstError != nil {
		p.FirstError = s.firstError.Error()
	}
	return p
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

package illumostest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"herd/adapters/illumos"
)

// Step is one command a Script expects, and what it answers.
type Step struct {
	// Command is the command as illumos.Command.String renders it.
	Command string
	// Stdout is what the command prints.
	Stdout string
	// Code, when not zero, makes the command fail with this exit status
	// and Stderr.
	Code   int
	Stderr string
}

// Script is a Runner that expects exactly its steps, in order, and answers
// each with what was recorded. Anything else fails the test.
type Script struct {
	t     testing.TB
	mu    sync.Mutex
	steps []Step
	next  int
}

var _ illumos.Runner = (*Script)(nil)

// NewScript returns a Script of steps; at the end of the test it fails t
// unless every step ran.
func NewScript(t testing.TB, steps ...Step) *Script {
	s := &Script{t: t, steps: steps}
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, st := range s.steps[s.next:] {
			t.Errorf("expected command never ran: %s", st.Command)
		}
	})
	return s
}

// Run implements illumos.Runner.
func (s *Script) Run(_ context.Context, c illumos.Command) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := c.String()
	if s.next >= len(s.steps) {
		s.t.Errorf("unexpected command after the script ended: %s", got)
		return nil, fmt.Errorf("unexpected command %s", got)
	}
	st := s.steps[s.next]
	if got != st.Command {
		s.t.Errorf("command %d:\n got  %s\n want %s", s.next+1, got, st.Command)
		return nil, fmt.Errorf("unexpected command %s", got)
	}
	s.next++
	if st.Code != 0 {
		return []byte(st.Stdout), &illumos.ExitError{Command: c, Code: st.Code, Stderr: st.Stderr}
	}
	return []byte(st.Stdout), nil
}

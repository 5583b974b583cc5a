package host

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"herd/adapters/illumos"
	"herd/domain"
)

// SMF reads services from illumos's service management facility through
// svcs, one service at a time: `svcs -H -o state,fmri NAME`.
type SMF struct {
	run illumos.Runner
}

var _ ServiceManager = (*SMF)(nil)

// NewSMF asks svcs through run.
func NewSMF(run illumos.Runner) *SMF { return &SMF{run: run} }

// svcsNoMatch is how svcs says that a name matches no service instance:
// "svcs: Pattern 'nosuch' doesn't match any instances".
const svcsNoMatch = "doesn't match any instances"

// Services implements ServiceManager. A name may match several instances
// (network/physical has :default and :nwam); the service runs when every
// one of them is online (or legacy_run, a legacy rc script that ran).
func (s *SMF) Services(ctx context.Context, names []string) ([]domain.ServiceState, error) {
	out := make([]domain.ServiceState, 0, len(names))
	var errs []error
	for _, name := range names {
		st, err := s.service(ctx, name)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, st)
	}
	return out, errors.Join(errs...)
}

// service asks svcs about one service.
func (s *SMF) service(ctx context.Context, name string) (domain.ServiceState, error) {
	out, err := s.run.Run(ctx, illumos.Command{Name: "svcs", Args: []string{"-H", "-o", "state,fmri", name}})
	var exit *illumos.ExitError
	switch {
	case errors.As(err, &exit) && strings.Contains(exit.Stderr, svcsNoMatch):
		return domain.ServiceState{Name: name, Status: domain.ServiceFailed, State: domain.ServiceNotFound}, nil
	case err != nil:
		return domain.ServiceState{Name: name, Status: domain.ServiceUnknown, State: "cannot run svcs: " + err.Error()},
			fmt.Errorf("service %s: %w", name, err)
	}
	return parseSvcs(name, out)
}

// parseSvcs reads `svcs -H -o state,fmri` output: one instance a line,
// its state (with an asterisk while it changes state) and its FMRI.
func parseSvcs(name string, out []byte) (domain.ServiceState, error) {
	type instance struct{ state, fmri string }
	var insts []instance
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			err := fmt.Errorf("svcs %s line %d %q: want a state and an FMRI", name, i+1, line)
			return domain.ServiceState{Name: name, Status: domain.ServiceUnknown, State: err.Error()}, err
		}
		insts = append(insts, instance{f[0], f[1]})
	}
	if len(insts) == 0 {
		return domain.ServiceState{Name: name, Status: domain.ServiceFailed, State: domain.ServiceNotFound}, nil
	}
	st := domain.ServiceState{Name: name, Status: domain.ServiceRunning, State: insts[0].state}
	var states []string
	for _, in := range insts {
		if s := strings.TrimSuffix(in.state, "*"); s != "online" && s != "legacy_run" {
			st.Status = domain.ServiceFailed
		}
		states = append(states, in.fmri+" "+in.state)
	}
	if len(insts) > 1 {
		st.State = strings.Join(states, ", ")
	}
	return st, nil
}

// Close implements ServiceManager; svcs holds nothing open.
func (s *SMF) Close() error { return nil }

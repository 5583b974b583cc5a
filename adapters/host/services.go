package host

import (
	"context"

	"herd/domain"
)

// ServiceManager tells the state of the services herd's agent watches
// (herd agent --watch-service): systemd over D-Bus on Linux, SMF through
// svcs on illumos.
type ServiceManager interface {
	// Services returns the state of each named service, in the order
	// asked. A service the manager does not know is Failed with State
	// domain.ServiceNotFound. When the manager cannot be asked at all,
	// every service is Unknown, its State says why, and the error is
	// that reason, for the caller to log.
	Services(ctx context.Context, names []string) ([]domain.ServiceState, error)
	// Close lets go of the manager (a D-Bus connection).
	Close() error
}

// unknownServices is every named service Unknown for the same reason.
func unknownServices(names []string, why string) []domain.ServiceState {
	out := make([]domain.ServiceState, len(names))
	for i, n := range names {
		out[i] = domain.ServiceState{Name: n, Status: domain.ServiceUnknown, State: why}
	}
	return out
}

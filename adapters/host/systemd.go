//go:build linux

package host

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	sdbus "github.com/coreos/go-systemd/v22/dbus"

	"herd/domain"
)

// Systemd reads units from systemd through its D-Bus API
// (org.freedesktop.systemd1.Manager.ListUnitsByNames), over one
// connection kept between heartbeats and made again after a failure.
type Systemd struct {
	connect func(context.Context) (*sdbus.Conn, error)

	mu   sync.Mutex
	conn *sdbus.Conn
}

var _ ServiceManager = (*Systemd)(nil)

// systemdCallTimeout bounds one question to systemd, well inside a
// heartbeat interval: a systemd that hangs makes its units Unknown
// rather than the heartbeat late.
const systemdCallTimeout = 5 * time.Second

// NewSystemd asks the systemd that connect reaches.
func NewSystemd(connect func(context.Context) (*sdbus.Conn, error)) *Systemd {
	return &Systemd{connect: connect}
}

// LocalSystemd is this host's systemd: through the system bus, or
// systemd's private socket when the bus is not running and herd runs as
// root, as go-systemd's NewWithContext tries them — but saying why each
// failed, where NewWithContext keeps the last reason only.
func LocalSystemd() *Systemd { return NewSystemd(connectLocal) }

// connectLocal reaches this host's systemd (see LocalSystemd).
func connectLocal(ctx context.Context) (*sdbus.Conn, error) {
	c, err := sdbus.NewSystemConnectionContext(ctx)
	if err == nil || os.Geteuid() != 0 {
		return c, err
	}
	c, perr := sdbus.NewSystemdConnectionContext(ctx)
	if perr == nil {
		return c, nil
	}
	return nil, fmt.Errorf("system bus: %w; systemd's private socket: %w", err, perr)
}

// unitTypes are the suffixes of systemd's unit names (systemd.unit(5)).
var unitTypes = []string{".service", ".socket", ".target", ".device", ".mount", ".automount",
	".swap", ".timer", ".path", ".slice", ".scope"}

// UnitName is name as systemd knows it: "nginx" is nginx.service, as
// systemctl reads it.
func UnitName(name string) string {
	for _, t := range unitTypes {
		if strings.HasSuffix(name, t) {
			return name
		}
	}
	return name + ".service"
}

// Services implements ServiceManager. names are taken as UnitName makes
// them. A unit runs while it is active (or reloading); any other state
// — failed, inactive, activating after a crash — is a failure, and a
// unit systemd cannot find is not-found.
func (s *Systemd) Services(ctx context.Context, names []string) ([]domain.ServiceState, error) {
	units := make([]string, len(names))
	for i, n := range names {
		units[i] = UnitName(n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, systemdCallTimeout)
	defer cancel()
	if s.conn == nil || !s.conn.Connected() {
		conn, err := s.connect(ctx)
		if err != nil {
			err = fmt.Errorf("cannot reach systemd over D-Bus: %w", err)
			return unknownServices(units, err.Error()), err
		}
		s.conn = conn
	}
	got, err := s.conn.ListUnitsByNamesContext(ctx, units)
	if err == nil && len(got) != len(units) {
		err = fmt.Errorf("systemd answered %d units for the %d asked", len(got), len(units))
	}
	if err != nil {
		s.conn.Close()
		s.conn = nil
		err = fmt.Errorf("cannot list units through systemd's D-Bus API: %w", err)
		return unknownServices(units, err.Error()), err
	}
	out := make([]domain.ServiceState, len(units))
	for i, u := range got {
		// systemd answers in the order asked; an alias comes back under
		// its unit's own name, so the name asked is the one reported.
		out[i] = unitState(units[i], u)
	}
	return out, nil
}

// unitState reads one unit's status.
func unitState(name string, u sdbus.UnitStatus) domain.ServiceState {
	state := u.ActiveState + "/" + u.SubState
	switch {
	case u.LoadState == "not-found":
		return domain.ServiceState{Name: name, Status: domain.ServiceFailed, State: domain.ServiceNotFound}
	case u.LoadState != "loaded" && u.LoadState != "":
		state = u.LoadState + ", " + state // masked, error, bad-setting
	}
	st := domain.ServiceState{Name: name, Status: domain.ServiceFailed, State: state}
	if u.ActiveState == "active" || u.ActiveState == "reloading" {
		st.Status = domain.ServiceRunning
	}
	return st
}

// Close implements ServiceManager.
func (s *Systemd) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
	return nil
}

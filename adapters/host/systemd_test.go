//go:build linux

package host

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdbus "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// startBus runs a private dbus-daemon — the real one, as a system runs
// it — listening on a unix socket in a temporary directory, and returns
// its address. The daemon stops with the test.
func startBus(t *testing.T) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not installed (make deps installs it)")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "bus.conf")
	// A bus of its own: any local peer may connect, own a name and call
	// anyone, as on a session bus.
	conf := fmt.Sprintf(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`, filepath.Join(dir, "bus"))
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), daemon, "--config-file="+config, "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Its stderr is left out: as an unprivileged daemon it complains
	// that it cannot raise its file limit, which is no matter here.
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The daemon prints its address once it listens.
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// dial connects to the bus at addr as go-systemd's own dialers do: the
// EXTERNAL mechanism with the process's uid, then Hello.
func dial(ctx context.Context, addr string) (*dbus.Conn, error) {
	c, err := dbus.Dial(addr, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	if err := c.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
		_ = c.Close()
		return nil, err
	}
	if err := c.Hello(); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// connectTo is a Systemd's connect for the bus at addr.
func connectTo(addr string) func(context.Context) (*sdbus.Conn, error) {
	return func(ctx context.Context) (*sdbus.Conn, error) {
		return sdbus.NewConnection(func() (*dbus.Conn, error) { return dial(ctx, addr) })
	}
}

// unitStatus is one entry of ListUnitsByNames' answer, a(ssssssouso) in
// systemd's D-Bus API.
type unitStatus struct {
	Name, Description, LoadState, ActiveState, SubState, Followed string
	Path                                                          dbus.ObjectPath
	JobID                                                         uint32
	JobType                                                       string
	JobPath                                                       dbus.ObjectPath
}

// fakeManager stands in for systemd's org.freedesktop.systemd1.Manager:
// it knows some units and answers ListUnitsByNames as systemd does, with
// load state not-found for a unit it does not know.
type fakeManager struct {
	mu    sync.Mutex
	units map[string][2]string // name → active state, sub state
	asked [][]string
}

// ListUnitsByNames is the D-Bus method go-systemd's ListUnitsByNamesContext calls.
func (m *fakeManager) ListUnitsByNames(names []string) ([]unitStatus, *dbus.Error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = append(m.asked, slices.Clone(names))
	var out []unitStatus
	for _, n := range names {
		u := unitStatus{Name: n, LoadState: "not-found", ActiveState: "inactive", SubState: "dead",
			Path: dbus.ObjectPath("/org/freedesktop/systemd1/unit/" + sdbus.PathBusEscape(n)), JobPath: "/"}
		if st, ok := m.units[n]; ok {
			u.LoadState, u.ActiveState, u.SubState = "loaded", st[0], st[1]
		}
		out = append(out, u)
	}
	return out, nil
}

// exportManager puts m on the bus at addr under systemd's well-known name
// and object path, until the test ends or it closes the connection it
// returns.
func exportManager(t *testing.T, addr string, m *fakeManager) *dbus.Conn {
	t.Helper()
	c, err := dial(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Export(m, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager"); err != nil {
		t.Fatal(err)
	}
	reply, err := c.RequestName("org.freedesktop.systemd1", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.systemd1: reply %v, error %v", reply, err)
	}
	return c
}

// TestSystemdOverARealBus asks a stand-in systemd for units through the
// real protocol path. Real: the dbus-daemon, its socket and
// authentication, godbus on both ends, and go-systemd's client with its
// ListUnitsByNames call and decoding, as herd's agent uses them. Standing
// in: systemd itself — a Manager object answering ListUnitsByNames with
// the states a test sets, since this machine runs no systemd.
func TestSystemdOverARealBus(t *testing.T) {
	addr := startBus(t)
	m := &fakeManager{units: map[string][2]string{
		"nginx.service":  {"active", "running"},
		"crashy.service": {"failed", "failed"},
		"backup.timer":   {"active", "waiting"},
		"flaky.service":  {"activating", "auto-restart"},
	}}
	exportManager(t, addr, m)

	sd := NewSystemd(connectTo(addr))
	t.Cleanup(func() { _ = sd.Close() })
	got, err := sd.Services(t.Context(), []string{"nginx", "crashy.service", "backup.timer", "flaky", "nosuch"})
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.ServiceState{
		{Name: "nginx.service", Status: domain.ServiceRunning, State: "active/running"},
		{Name: "crashy.service", Status: domain.ServiceFailed, State: "failed/failed"},
		{Name: "backup.timer", Status: domain.ServiceRunning, State: "active/waiting"},
		{Name: "flaky.service", Status: domain.ServiceFailed, State: "activating/auto-restart"},
		{Name: "nosuch.service", Status: domain.ServiceFailed, State: domain.ServiceNotFound},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("services (-want +got):\n%s", diff)
	}

	// The unit recovers; the connection is kept for the next question.
	m.mu.Lock()
	m.units["crashy.service"] = [2]string{"active", "running"}
	m.mu.Unlock()
	got, err = sd.Services(t.Context(), []string{"crashy"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]domain.ServiceState{{Name: "crashy.service", Status: domain.ServiceRunning, State: "active/running"}}, got); diff != "" {
		t.Errorf("after recovery (-want +got):\n%s", diff)
	}
	wantAsked := [][]string{{"nginx.service", "crashy.service", "backup.timer", "flaky.service", "nosuch.service"}, {"crashy.service"}}
	m.mu.Lock()
	defer m.mu.Unlock()
	if diff := cmp.Diff(wantAsked, m.asked); diff != "" {
		t.Errorf("units asked (-want +got):\n%s", diff)
	}
}

// TestSystemdUnreachableIsUnknown: with no bus, or a bus without
// systemd on it, every unit is Unknown, saying why, and the error is
// there to log; nothing panics.
func TestSystemdUnreachableIsUnknown(t *testing.T) {
	t.Run("no bus", func(t *testing.T) {
		sd := NewSystemd(connectTo("unix:path=" + filepath.Join(t.TempDir(), "none")))
		got, err := sd.Services(t.Context(), []string{"nginx"})
		if err == nil || !strings.Contains(err.Error(), "cannot reach systemd over D-Bus") {
			t.Errorf("error %v, want it to say systemd cannot be reached", err)
		}
		if len(got) != 1 || got[0].Name != "nginx.service" || got[0].Status != domain.ServiceUnknown || got[0].State != err.Error() {
			t.Errorf("services %+v, want nginx.service Unknown with the reason", got)
		}
	})
	t.Run("a bus without systemd", func(t *testing.T) {
		sd := NewSystemd(connectTo(startBus(t)))
		t.Cleanup(func() { _ = sd.Close() })
		got, err := sd.Services(t.Context(), []string{"nginx"})
		if err == nil || !strings.Contains(err.Error(), "org.freedesktop.systemd1") {
			t.Errorf("error %v, want the bus's answer naming systemd", err)
		}
		if len(got) != 1 || got[0].Status != domain.ServiceUnknown {
			t.Errorf("services %+v, want Unknown", got)
		}
	})
}

// TestSystemdComesBack: systemd leaving the bus (a restart, a re-exec)
// makes the units Unknown; once it is back, the next heartbeat tells
// their state again.
func TestSystemdComesBack(t *testing.T) {
	addr := startBus(t)
	m := &fakeManager{units: map[string][2]string{"nginx.service": {"active", "running"}}}
	gone := exportManager(t, addr, m)
	sd := NewSystemd(connectTo(addr))
	t.Cleanup(func() { _ = sd.Close() })
	running := []domain.ServiceState{{Name: "nginx.service", Status: domain.ServiceRunning, State: "active/running"}}

	got, err := sd.Services(t.Context(), []string{"nginx"})
	if err != nil || !cmp.Equal(running, got) {
		t.Fatalf("before: %+v, %v", got, err)
	}
	if err := gone.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = sd.Services(t.Context(), []string{"nginx"})
	if err == nil || len(got) != 1 || got[0].Status != domain.ServiceUnknown {
		t.Errorf("with systemd gone: %+v, %v; want Unknown and an error", got, err)
	}
	exportManager(t, addr, m)
	got, err = sd.Services(t.Context(), []string{"nginx"})
	if err != nil || !cmp.Equal(running, got) {
		t.Errorf("with systemd back: %+v, %v; want nginx.service running", got, err)
	}
}

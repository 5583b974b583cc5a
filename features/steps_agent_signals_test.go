package features

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/cucumber/godog"
	"go.uber.org/fx"

	"herd/adapters/host"
	"herd/cmd/herd/app"
	"herd/domain"
)

// hostServices stands in for a host's service manager (systemd, SMF),
// which this machine does not run: the steps set each service's state,
// and whether the manager can be asked at all.
type hostServices struct {
	mu          sync.Mutex
	states      map[string]domain.ServiceState
	unreachable bool
}

var _ host.ServiceManager = (*hostServices)(nil)

// Services implements host.ServiceManager as systemd's client does: a
// unit it does not know is not-found, and a manager it cannot reach
// leaves every unit Unknown.
func (s *hostServices) Services(_ context.Context, names []string) ([]domain.ServiceState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]domain.ServiceState, len(names))
	if s.unreachable {
		err := errors.New("cannot reach systemd over D-Bus: dial unix /var/run/dbus/system_bus_socket: connect: no such file or directory")
		for i, n := range names {
			out[i] = domain.ServiceState{Name: n, Status: domain.ServiceUnknown, State: err.Error()}
		}
		return out, err
	}
	for i, n := range names {
		st, ok := s.states[n]
		if !ok {
			st = domain.ServiceState{Name: n, Status: domain.ServiceFailed, State: domain.ServiceNotFound}
		}
		out[i] = st
	}
	return out, nil
}

// Close implements host.ServiceManager.
func (s *hostServices) Close() error { return nil }

// Steps about what herd's agent reports beyond its host's load, memory,
// disk and processes: CPU use, network links and watched services.
func (w *world) registerAgentSignalSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the agent of "([^"]+)" runs on a linux host whose services (.+) run, watching (.+)$`, w.agentWatches)
	sc.Step(`^service "([^"]+)" on the host of "([^"]+)" (fails|runs again)$`, w.serviceChanges)
	sc.Step(`^systemd on the host of "([^"]+)" (cannot be reached|can be reached again)$`, w.systemdReachable)
	sc.Step(`^the host of "([^"]+)" has (\d+)% of its CPU in use$`, w.hostCPUInUse)
	sc.Step(`^the links of the host of "([^"]+)" are (.+)$`, w.hostLinks)
}

// agentWatches starts an agent on a linux host (4 CPUs, 16Gi) whose
// services run, watching the named ones (--watch-service); its links
// eth0 and eth1 are up.
func (w *world) agentWatches(node, running, watched string) error {
	if w.agent != nil {
		return errors.New("the scenario runs one agent")
	}
	svc := &hostServices{states: map[string]domain.ServiceState{}}
	for _, n := range splitList(running) {
		unit := host.ServiceName(n)
		svc.states[unit] = domain.ServiceState{Name: unit, Status: domain.ServiceRunning, State: "active/running"}
	}
	h := newNodeHost("linux")
	h.facts.CPUs, h.facts.MemoryBytes = 4, 16<<30
	h.metrics.CPUCount, h.metrics.MemoryTotalBytes, h.metrics.MemoryAvailableBytes = 4, 16<<30, 8<<30
	h.metrics.Links = []domain.NetworkLink{{Name: "eth0", State: "up", Up: true}, {Name: "eth1", State: "up", Up: true}}
	cfg := app.DefaultAgentConfig()
	cfg.Server, cfg.LogLevel, cfg.Version, cfg.MetricsListen = w.server.URL(), "error", "test", ""
	cfg.Node.Name = node
	cfg.WatchServices = splitList(watched)
	w.agent = &agentProc{cfg: cfg, host: h, services: svc, extra: []fx.Option{
		fx.Decorate(func(host.ServiceManager) host.ServiceManager { return svc }),
	}}
	return w.startAgent()
}

// services is the stand-in service manager of the scenario's agent.
func (w *world) services() (*hostServices, error) {
	if w.agent == nil || w.agent.services == nil {
		return nil, errors.New("no agent watching services runs")
	}
	return w.agent.services, nil
}

func (w *world) serviceChanges(name, _, change string) error {
	svc, err := w.services()
	if err != nil {
		return err
	}
	unit := host.ServiceName(name)
	svc.mu.Lock()
	defer svc.mu.Unlock()
	st := domain.ServiceState{Name: unit, Status: domain.ServiceRunning, State: "active/running"}
	if change == "fails" {
		st = domain.ServiceState{Name: unit, Status: domain.ServiceFailed, State: "failed/failed"}
	}
	svc.states[unit] = st
	return nil
}

func (w *world) systemdReachable(_, how string) error {
	svc, err := w.services()
	if err != nil {
		return err
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	svc.unreachable = how == "cannot be reached"
	return nil
}

func (w *world) hostCPUInUse(_ string, percent int) error {
	h := w.agent.host
	h.mu.Lock()
	defer h.mu.Unlock()
	p := float64(percent)
	h.metrics.CPUPercent = &p
	return nil
}

// linkState is one link in a list such as `eth0 down and eth1 up`.
var linkState = regexp.MustCompile(`(\w+) (up|down|lowerlayerdown|dormant)`)

func (w *world) hostLinks(_ string, list string) error {
	var links []domain.NetworkLink
	for _, m := range linkState.FindAllStringSubmatch(list, -1) {
		links = append(links, domain.NetworkLink{Name: m[1], State: m[2], Up: m[2] == "up"})
	}
	if len(links) == 0 {
		return fmt.Errorf("no links in %q: want e.g. eth0 down and eth1 up", list)
	}
	h := w.agent.host
	h.mu.Lock()
	defer h.mu.Unlock()
	h.metrics.Links = slices.Clone(links)
	return nil
}

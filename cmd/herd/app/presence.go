package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/herdclient"
	"herd/adapters/host"
	"herd/domain"
)

// Registry is where a node of herd's own announces itself: herd's API for
// `herd agent`, herd's own unit of work for `herd serve --local-node`.
type Registry interface {
	Register(ctx context.Context, reg domain.Registration) (domain.Node, error)
	Heartbeat(ctx context.Context, name string, m domain.Metrics) (domain.Node, error)
	Deregister(ctx context.Context, name string) error
}

// Presence keeps a node of herd's own in the fleet while it runs: it
// registers the host at start (its kind, capacity and allocatable after
// the reservations), reports the host's metrics every heartbeat interval
// — herd derives the node's conditions from them — and deregisters on a
// clean stop, so that the next start is a clean start.
type Presence struct {
	cfg     NodeConfig
	reg     Registry
	src     host.Source
	jobs    func(context.Context) (int, error)
	labels  map[string]string
	version string
	clock   clock.WithTicker
	log     *zap.Logger

	// services tells the state of the watched services; nil when the
	// node watches none (WatchServices).
	services host.ServiceManager
	watched  []string
	// servicesBlind is set while the service manager cannot be asked, so
	// that the failure is logged once and not with every heartbeat.
	servicesBlind bool

	cancel context.CancelFunc
	done   sync.WaitGroup
}

// registerRetry is the wait between two registration attempts while herd
// cannot be reached (the agent may start before herd does), or when herd
// shed one without saying how long to wait.
const registerRetry = 2 * time.Second

// NewPresence returns the presence of the node cfg names. jobs counts the
// pods the node runs, for the heartbeat's activeJobs; labels are added to
// the registration (herd.dev/runtime=agent for an agent).
func NewPresence(cfg NodeConfig, reg Registry, src host.Source, jobs func(context.Context) (int, error), labels map[string]string,
	version string, clk clock.WithTicker, log *zap.Logger) *Presence {
	return &Presence{cfg: cfg, reg: reg, src: src, jobs: jobs, labels: labels, version: version, clock: clk,
		log: log.Named("presence")}
}

// WatchServices makes every heartbeat carry the state of the named
// services as mgr tells it (herd agent --watch-service); herd derives
// ServicesHealthy from them. Call it before Start.
func (p *Presence) WatchServices(mgr host.ServiceManager, names []string) {
	p.services, p.watched = mgr, names
}

// Start registers the node, waiting for herd while it cannot be reached
// (until ctx ends), and starts heartbeating. A registration herd refuses
// fails at once with herd's reason.
func (p *Presence) Start(ctx context.Context) error {
	facts, err := p.src.Facts(ctx)
	if err != nil {
		return fmt.Errorf("node %s: read the host: %w", p.cfg.Name, err)
	}
	reg := p.registration(facts)
	n, err := p.register(ctx, reg)
	if err != nil {
		return err
	}
	p.log.Info("node registered", zap.String("kind", string(n.Kind)), zap.Int("restarts", n.RestartCount),
		zap.String("reason", n.LastRestartReason), zap.Any("allocatable", n.Allocatable))
	// The first report is part of the start: herd knows the node Ready
	// once the start is done.
	p.report(ctx, reg)
	loop, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.done.Go(func() { p.heartbeats(loop, reg) })
	return nil
}

func (p *Presence) register(ctx context.Context, reg domain.Registration) (domain.Node, error) {
	for {
		n, err := p.reg.Register(ctx, reg)
		if err == nil {
			return n, nil
		}
		if !herdclient.Retryable(err) || ctx.Err() != nil {
			return domain.Node{}, fmt.Errorf("node %s: register: %w", p.cfg.Name, err)
		}
		// herd may have shed the registration for load and said how long
		// to wait: the agent waits at least that long.
		wait := max(registerRetry, herdclient.RetryAfter(err))
		p.log.Warn("cannot register yet; trying again", zap.Duration("in", wait), zap.Error(err))
		t := p.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return domain.Node{}, fmt.Errorf("node %s: register: %w", p.cfg.Name, errors.Join(err, ctx.Err()))
		case <-t.C():
		}
	}
}

// heartbeats reports every interval until ctx ends.
func (p *Presence) heartbeats(ctx context.Context, reg domain.Registration) {
	t := p.clock.NewTicker(p.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		p.report(ctx, reg)
	}
}

// report sends one heartbeat. A node an operator deleted meanwhile
// registers again, as a kubelet does; a failure is logged and the next
// interval tries again.
func (p *Presence) report(ctx context.Context, reg domain.Registration) {
	err := p.beat(ctx)
	if errors.Is(err, domain.ErrNotFound) && ctx.Err() == nil {
		p.log.Warn("herd no longer knows the node; registering again")
		if _, err = p.reg.Register(ctx, reg); err == nil {
			err = p.beat(ctx)
		}
	}
	if err != nil && ctx.Err() == nil {
		p.log.Warn("heartbeat failed", zap.Error(err))
	}
}

func (p *Presence) beat(ctx context.Context) error {
	m, err := p.src.Metrics(ctx)
	if err != nil {
		return fmt.Errorf("read the host: %w", err)
	}
	if m.ActiveJobs, err = p.jobs(ctx); err != nil {
		return fmt.Errorf("count the pods: %w", err)
	}
	m.Services = p.watchedServices(ctx)
	_, err = p.reg.Heartbeat(ctx, p.cfg.Name, m)
	return err
}

// watchedServices asks the service manager about the watched services.
// One it cannot ask leaves them Unknown — herd shows ServicesHealthy
// Unknown — and is logged when it starts and when it ends.
func (p *Presence) watchedServices(ctx context.Context) []domain.ServiceState {
	if p.services == nil || len(p.watched) == 0 {
		return nil
	}
	ss, err := p.services.Services(ctx, p.watched)
	switch {
	case err != nil && !p.servicesBlind && ctx.Err() == nil:
		p.log.Warn("cannot tell the state of the watched services; herd shows them Unknown", zap.Strings("services", p.watched), zap.Error(err))
		p.servicesBlind = true
	case err == nil && p.servicesBlind:
		p.log.Info("the state of the watched services can be told again", zap.Strings("services", p.watched))
		p.servicesBlind = false
	}
	return ss
}

// Stop ends the heartbeats and deregisters the node. A herd that cannot
// be reached is logged: the node then falls silent instead, and its next
// start counts as crash recovery.
func (p *Presence) Stop(ctx context.Context) error {
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	p.done.Wait()
	if p.services != nil {
		_ = p.services.Close()
	}
	if err := p.reg.Deregister(ctx, p.cfg.Name); err != nil {
		p.log.Warn("could not deregister; herd will see the node fall silent", zap.Error(err))
		return nil
	}
	p.log.Info("node deregistered")
	return nil
}

// registration is what the node registers with: the host's facts, its
// capacity in CPUs, memory and pods, and allocatable after the
// reservations.
func (p *Presence) registration(f host.Facts) domain.Registration {
	kind := domain.KindLinux
	if f.OperatingSystem == "illumos" {
		kind = domain.KindIllumos
	}
	labels := map[string]string{
		"kubernetes.io/hostname": p.cfg.Name,
		"kubernetes.io/os":       f.OperatingSystem,
		"kubernetes.io/arch":     f.Architecture,
	}
	maps.Copy(labels, p.labels)
	cpu, mem := int64(f.CPUs)*1000, f.MemoryBytes
	reg := domain.Registration{
		Name: p.cfg.Name, Kind: kind, Labels: labels,
		Capacity:    domain.ResourceList{"cpu": cpu, "memory": mem, "pods": p.cfg.MaxPods},
		Allocatable: domain.ResourceList{"cpu": max(cpu-p.cfg.ReserveCPU, 0), "memory": max(mem-p.cfg.ReserveMemory, 0), "pods": p.cfg.MaxPods},
		Info: domain.NodeInfo{
			AgentVersion: "herd-agent/" + p.version, KernelVersion: f.KernelVersion, OSImage: f.OSImage,
			OperatingSystem: f.OperatingSystem, Architecture: f.Architecture, BootID: f.BootID, MachineID: f.MachineID,
			ContainerRuntimeVersion: p.cfg.Runtime,
		},
	}
	if f.Hostname != "" {
		reg.Addresses = append(reg.Addresses, domain.Address{Type: "Hostname", Address: f.Hostname})
	}
	if p.cfg.Address != "" {
		reg.Addresses = append(reg.Addresses, domain.Address{Type: "InternalIP", Address: p.cfg.Address})
	}
	return reg
}

package illumos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
)

// Runtime runs pods as zones. Every method is idempotent and works from
// what the host shows: it lists zones, links and datasets, then does only
// the steps still missing, so a call after a crash resumes where the last
// one stopped. Calls for one pod are serialised; calls for different pods
// run at once.
type Runtime struct {
	cfg     Config
	run     Runner
	clock   clock.PassiveClock
	storage *Storage
	network *Network
	locks   keyedMutex
}

// New returns the zone runtime of a host, or an error naming the setting
// that is wrong. Call Init before the first pod.
func New(cfg Config, run Runner, clk clock.PassiveClock) (*Runtime, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Runtime{cfg: cfg, run: run, clock: clk, storage: NewStorage(cfg, run), network: NewNetwork(cfg, run)}, nil
}

// Init prepares the host: base datasets, and the etherstub or a check of
// the physical link.
func (r *Runtime) Init(ctx context.Context) error {
	return errors.Join(r.storage.Init(ctx), r.network.Init(ctx))
}

// Storage is the runtime's storage engine.
func (r *Runtime) Storage() *Storage { return r.storage }

// Zones lists herd's zones on the host (those named "herd-...").
func (r *Runtime) Zones(ctx context.Context) ([]Zone, error) {
	out, err := r.run.Run(ctx, Command{Name: "zoneadm", Args: []string{"list", "-cp"}})
	if err != nil {
		return nil, err
	}
	all, err := ParseZoneList(out)
	if err != nil {
		return nil, err
	}
	var herd []Zone
	for _, z := range all {
		if strings.HasPrefix(z.Name, herdZonePrefix) {
			herd = append(herd, z)
		}
	}
	return herd, nil
}

// zone returns the named zone, and false when the host has none of that
// name.
func (r *Runtime) zone(ctx context.Context, name string) (Zone, bool, error) {
	zones, err := r.Zones(ctx)
	if err != nil {
		return Zone{}, false, err
	}
	for _, z := range zones {
		if z.Name == name {
			return z, true, nil
		}
	}
	return Zone{}, false, nil
}

// zoneadm runs `zoneadm -z <zone> <args...>`.
func (r *Runtime) zoneadm(ctx context.Context, zone string, args ...string) error {
	_, err := r.run.Run(ctx, Command{Name: "zoneadm", Args: append([]string{"-z", zone}, args...)})
	return err
}

// Provision makes everything the pod's zone needs, in order — VNIC, the
// gateway of its pool (etherstub mode), datasets, zone configuration,
// installation — skipping what exists. A zone left incomplete by an
// interrupted install is uninstalled and installed again. A pod the host
// cannot run fails with ErrUnrunnable before anything is made.
func (r *Runtime) Provision(ctx context.Context, p domain.Pod) error {
	s, err := r.cfg.specFor(p)
	if err != nil {
		return err
	}
	defer r.locks.lock(s.zone)()
	z, found, err := r.zone(ctx, s.zone)
	if err != nil {
		return err
	}
	if found && z.State != ZoneConfigured && z.State != ZoneIncomplete {
		return nil // installed, or further along
	}
	if err := r.network.ensureGateway(ctx, s.network); err != nil {
		return err
	}
	if err := r.network.ensureVNIC(ctx, s); err != nil {
		return err
	}
	if err := r.storage.ensure(ctx, s); err != nil {
		return err
	}
	state := z.State
	if !found {
		// zonecfg applies the file as one transaction: it commits all of
		// it or nothing, so there is no half-configured zone to find.
		if _, err := r.run.Run(ctx, Command{Name: "zonecfg", Args: []string{"-z", s.zone, "-f", "/dev/stdin"}, Stdin: s.zonecfg(r.cfg)}); err != nil {
			return fmt.Errorf("configure zone %s: %w", s.zone, err)
		}
		state = ZoneConfigured
	}
	if state == ZoneIncomplete {
		if err := r.zoneadm(ctx, s.zone, "uninstall", "-F"); err != nil {
			return fmt.Errorf("clean up the interrupted install of zone %s: %w", s.zone, err)
		}
	}
	args := []string{"install"}
	if s.image != "" {
		args = append(args, "-s", s.image)
	}
	if err := r.zoneadm(ctx, s.zone, args...); err != nil {
		return fmt.Errorf("install zone %s: %w", s.zone, err)
	}
	return nil
}

// Start boots the pod's installed zone and reports its address. Starting
// a running zone reports it again.
func (r *Runtime) Start(ctx context.Context, p domain.Pod) (domain.RuntimeStatus, error) {
	name := ZoneName(p)
	defer r.locks.lock(name)()
	z, found, err := r.zone(ctx, name)
	if err != nil {
		return domain.RuntimeStatus{}, err
	}
	st := domain.RuntimeStatus{StartedAt: p.Status.StartTime}
	if p.Network != nil {
		st.PodIP = p.Network.IP
	}
	switch {
	case !found:
		return domain.RuntimeStatus{}, fmt.Errorf("start zone %s: it does not exist; provision the pod first", name)
	case z.State == ZoneRunning:
		if st.StartedAt.IsZero() {
			st.StartedAt = r.clock.Now()
		}
		return st, nil
	case z.State == ZoneInstalled || z.State == ZoneReady:
		if err := r.zoneadm(ctx, name, "boot"); err != nil {
			return domain.RuntimeStatus{}, fmt.Errorf("boot zone %s: %w", name, err)
		}
		st.StartedAt = r.clock.Now()
		return st, nil
	}
	return domain.RuntimeStatus{}, fmt.Errorf("start zone %s: it is %s", name, z.State)
}

// State reports where the pod stands. An installed zone that is not
// running is Provisioned while its pod waits to start, and Stopped once
// the pod has started or is being deleted.
func (r *Runtime) State(ctx context.Context, p domain.Pod) (domain.RuntimeState, error) {
	z, found, err := r.zone(ctx, ZoneName(p))
	if err != nil {
		return domain.RuntimeState{}, err
	}
	if !found {
		return domain.RuntimeState{Phase: domain.RuntimeAbsent}, nil
	}
	var st domain.RuntimeState
	switch z.State {
	case ZoneRunning:
		st.Phase = domain.RuntimeRunning
	case ZoneShuttingDown:
		st.Phase, st.Message = domain.RuntimeRunning, "the zone is shutting down"
	case ZoneDown:
		st.Phase, st.Message = domain.RuntimeStopped, "the zone is down and releasing its resources"
	default: // configured, incomplete, installed, ready
		st.Phase = domain.RuntimeProvisioned
		if !p.Status.StartTime.IsZero() || p.Terminating() {
			st.Phase = domain.RuntimeStopped
		}
	}
	return st, nil
}

// ShutdownWait bounds how long Shutdown waits for `zoneadm shutdown`; a
// zone still shutting down after it reports Running with a message, and
// is halted when its pod's grace period runs out.
const ShutdownWait = 10 * time.Second

// Shutdown asks a running zone to shut down cleanly; anything else is left
// as it is.
func (r *Runtime) Shutdown(ctx context.Context, p domain.Pod) error {
	name := ZoneName(p)
	defer r.locks.lock(name)()
	z, found, err := r.zone(ctx, name)
	if err != nil || !found || z.State != ZoneRunning {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, ShutdownWait)
	defer cancel()
	err = r.zoneadm(wait, name, "shutdown")
	if err != nil && ctx.Err() == nil && wait.Err() != nil {
		return nil // still shutting down; State tells
	}
	if err != nil {
		return fmt.Errorf("shut down zone %s: %w", name, err)
	}
	return nil
}

// Halt stops the pod's zone at once, whatever it is doing.
func (r *Runtime) Halt(ctx context.Context, p domain.Pod) error {
	name := ZoneName(p)
	defer r.locks.lock(name)()
	z, found, err := r.zone(ctx, name)
	if err != nil || !found {
		return err
	}
	return r.halt(ctx, z)
}

func (r *Runtime) halt(ctx context.Context, z Zone) error {
	switch z.State {
	case ZoneRunning, ZoneReady, ZoneShuttingDown, ZoneDown:
		if err := r.zoneadm(ctx, z.Name, "halt"); err != nil {
			return fmt.Errorf("halt zone %s: %w", z.Name, err)
		}
	}
	return nil
}

// Deprovision removes everything the pod had: halts the zone, uninstalls
// it (`uninstall -F`), deletes its configuration (`zonecfg delete -F`),
// deletes its VNIC and destroys its dataset and ephemeral volumes. Its
// persistent volumes stay. Whatever is already gone is skipped, so it
// finishes what an interrupted provisioning or deprovisioning left.
func (r *Runtime) Deprovision(ctx context.Context, p domain.Pod) error {
	name := ZoneName(p)
	defer r.locks.lock(name)()
	z, found, err := r.zone(ctx, name)
	if err != nil {
		return err
	}
	if found {
		if err := r.deleteZone(ctx, z); err != nil {
			return err
		}
	}
	if err := r.network.removeVNIC(ctx, VNICName(p)); err != nil {
		return err
	}
	return r.storage.remove(ctx, name)
}

// keyedMutex serialises work per key.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*keyedLock
}

type keyedLock struct {
	sync.Mutex
	users int
}

// lock takes the key's lock and returns its release.
func (k *keyedMutex) lock(key string) func() {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyedLock{}
	}
	l := k.locks[key]
	if l == nil {
		l = &keyedLock{}
		k.locks[key] = l
	}
	l.users++
	k.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.users--; l.users == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}

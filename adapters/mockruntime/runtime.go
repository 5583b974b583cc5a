package mockruntime

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
)

// Config tunes the mock.
type Config struct {
	// ShutdownDelay is how long a pod without the shutdown annotation
	// takes to stop once asked to; 0 stops it at once.
	ShutdownDelay time.Duration
}

// Validate names what is wrong with the configuration.
func (c Config) Validate() error {
	if c.ShutdownDelay < 0 {
		return fmt.Errorf("--mock-shutdown-delay %s: want 0 or more", c.ShutdownDelay)
	}
	return nil
}

// Op names one thing that happened to a pod on the runtime.
type Op string

// The operations a pod's history records.
const (
	OpProvision Op = "Provision"
	OpStart     Op = "Start"
	OpShutdown  Op = "Shutdown"
	OpHalt      Op = "Halt"
	OpStopped   Op = "Stopped"
	// OpExited is the pod's containers running to their end by
	// themselves; a Start after it restarts them.
	OpExited      Op = "Exited"
	OpDeprovision Op = "Deprovision"
)

// Step is one entry of a pod's history: what happened, by herd's clock.
type Step struct {
	Op Op
	At time.Time
}

// Pod is what the runtime knows of one pod, for tests to inspect.
type Pod struct {
	UID   string
	State domain.RuntimeState
	// StartedAt is when the pod was started; zero before.
	StartedAt time.Time
	// History lists every change, oldest first. Repeated calls that
	// change nothing (the runtime is idempotent) are not recorded.
	History []Step
}

// Ops is the history's operations without their times.
func (p Pod) Ops() []Op {
	out := make([]Op, len(p.History))
	for i, s := range p.History {
		out[i] = s.Op
	}
	return out
}

// Runtime is the mock runtime. It is safe for concurrent use.
type Runtime struct {
	cfg   Config
	clock clock.PassiveClock

	mu   sync.Mutex
	pods map[string]*entry
}

// entry is one pod's record.
type entry struct {
	Pod
	// shutdownAt is when Shutdown was first asked for; zero if never.
	shutdownAt time.Time
	// stopAt is when a pod asked to shut down stops; zero while it
	// ignores shutdown.
	stopAt time.Time
	// run is how the pod's containers run, read from their commands when
	// it was provisioned.
	run containerRun
}

// New returns an empty mock runtime on clk.
func New(cfg Config, clk clock.PassiveClock) (*Runtime, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Runtime{cfg: cfg, clock: clk, pods: map[string]*entry{}}, nil
}

// Pod returns what the runtime knows of the pod namespace/name, and false
// when it never saw it. A deprovisioned pod stays visible, Absent, with
// its history.
func (r *Runtime) Pod(namespace, name string) (Pod, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.pods[namespace+"/"+name]
	if !ok {
		return Pod{}, false
	}
	r.settle(e)
	out := e.Pod
	out.History = slices.Clone(e.History)
	return out, true
}

// Provision creates the pod's resources. It is idempotent; a pod of the
// same name with another UID replaces the old record, as a recreated pod
// would. A malformed shutdown annotation fails it.
func (r *Runtime) Provision(_ context.Context, p domain.Pod) error {
	if _, _, err := shutdownDelay(p, r.cfg.ShutdownDelay); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.pods[p.Key()]
	if ok && e.UID == p.UID && e.State.Phase != domain.RuntimeAbsent {
		return nil
	}
	if !ok || e.UID != p.UID {
		e = &entry{Pod: Pod{UID: p.UID}}
		r.pods[p.Key()] = e
	}
	e.shutdownAt, e.stopAt, e.StartedAt = time.Time{}, time.Time{}, time.Time{}
	e.run = podRun(p)
	e.State = domain.RuntimeState{Phase: domain.RuntimeProvisioned}
	r.record(e, OpProvision, r.clock.Now())
	return nil
}

// Start boots a provisioned pod. Starting a running pod returns its status
// again; a pod that is not provisioned, or was asked to stop, is refused.
func (r *Runtime) Start(_ context.Context, p domain.Pod) (domain.RuntimeStatus, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.lookup(p)
	switch {
	case e == nil:
		return domain.RuntimeStatus{}, fmt.Errorf("mock runtime: pod %s is not provisioned", p.Key())
	case !e.shutdownAt.IsZero():
		return domain.RuntimeStatus{}, fmt.Errorf("mock runtime: pod %s was asked to shut down; it is not started again", p.Key())
	}
	r.settle(e)
	switch e.State.Phase {
	case domain.RuntimeRunning:
		return domain.RuntimeStatus{StartedAt: e.StartedAt, ExitsAt: e.State.ExitsAt, Restarts: e.State.Restarts}, nil
	case domain.RuntimeProvisioned, domain.RuntimeExited:
		// From Exited, a restart of the containers that ended.
		now := r.clock.Now()
		restarts := e.State.Restarts
		if e.State.Phase == domain.RuntimeExited {
			restarts++
		}
		e.State = domain.RuntimeState{Phase: domain.RuntimeRunning, Restarts: restarts}
		if e.run.ends {
			e.State.ExitsAt = now.Add(e.run.d)
		}
		e.StartedAt = now
		r.record(e, OpStart, now)
		exits := e.State.ExitsAt
		r.settle(e)
		return domain.RuntimeStatus{StartedAt: now, ExitsAt: exits, Restarts: restarts}, nil
	}
	return domain.RuntimeStatus{}, fmt.Errorf("mock runtime: pod %s is %s; it cannot be started", p.Key(), e.State.Phase)
}

// State reports where the pod stands; Absent for a pod the runtime does not
// hold (or holds under another UID).
func (r *Runtime) State(_ context.Context, p domain.Pod) (domain.RuntimeState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.lookup(p)
	if e == nil {
		return domain.RuntimeState{Phase: domain.RuntimeAbsent}, nil
	}
	r.settle(e)
	return e.State, nil
}

// Shutdown asks the pod to stop. A running pod stops after its shutdown
// delay (never, when it ignores shutdown); one that never started stops at
// once. Asking again changes nothing.
func (r *Runtime) Shutdown(_ context.Context, p domain.Pod) error {
	delay, ignores, err := shutdownDelay(p, r.cfg.ShutdownDelay)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.lookup(p)
	if e == nil || !e.shutdownAt.IsZero() {
		return nil
	}
	now := r.clock.Now()
	switch e.State.Phase {
	case domain.RuntimeProvisioned:
		e.shutdownAt = now
		r.record(e, OpShutdown, now)
		r.stop(e, now)
	case domain.RuntimeRunning:
		e.shutdownAt = now
		r.record(e, OpShutdown, now)
		if !ignores {
			e.stopAt = now.Add(delay)
			r.settle(e)
		}
	}
	return nil
}

// Halt stops the pod at once.
func (r *Runtime) Halt(_ context.Context, p domain.Pod) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.lookup(p)
	if e == nil {
		return nil
	}
	r.settle(e)
	switch e.State.Phase {
	case domain.RuntimeProvisioned, domain.RuntimeRunning:
		now := r.clock.Now()
		r.record(e, OpHalt, now)
		r.stop(e, now)
	}
	return nil
}

// Deprovision removes everything the pod had, stopping it first if need
// be. Removing an absent pod changes nothing.
func (r *Runtime) Deprovision(_ context.Context, p domain.Pod) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.lookup(p)
	if e == nil {
		return nil
	}
	r.settle(e)
	now := r.clock.Now()
	if e.State.Phase == domain.RuntimeRunning {
		r.stop(e, now)
	}
	e.State = domain.RuntimeState{Phase: domain.RuntimeAbsent}
	r.record(e, OpDeprovision, now)
	return nil
}

// lookup returns the pod's live record, or nil when the runtime holds
// nothing for it: never seen, deprovisioned, or another pod's.
func (r *Runtime) lookup(p domain.Pod) *entry {
	e, ok := r.pods[p.Key()]
	if !ok || e.UID != p.UID || e.State.Phase == domain.RuntimeAbsent {
		return nil
	}
	return e
}

// settle ends a running pod whose containers have run to their end by
// now, or whose shutdown delay has run out, whichever came first, dating
// it when it happened rather than when someone looked.
func (r *Runtime) settle(e *entry) {
	if e.State.Phase != domain.RuntimeRunning {
		return
	}
	now := r.clock.Now()
	if exits := e.State.ExitsAt; !exits.IsZero() && !now.Before(exits) && (e.stopAt.IsZero() || exits.Before(e.stopAt)) {
		e.State = domain.RuntimeState{Phase: domain.RuntimeExited, ExitCode: e.run.code, FinishedAt: exits, Restarts: e.State.Restarts}
		e.stopAt = time.Time{}
		r.record(e, OpExited, exits)
		return
	}
	if e.stopAt.IsZero() || now.Before(e.stopAt) {
		return
	}
	r.stop(e, e.stopAt)
}

func (r *Runtime) stop(e *entry, at time.Time) {
	e.State = domain.RuntimeState{Phase: domain.RuntimeStopped}
	e.stopAt = time.Time{}
	r.record(e, OpStopped, at)
}

func (r *Runtime) record(e *entry, op Op, at time.Time) {
	e.History = append(e.History, Step{Op: op, At: at})
}

// Ephemeral reports that the mock's pods live in memory and end with the
// process: after a restart it holds none, and the zones reconciler starts
// a pod that was running again instead of failing it as vanished.
func (r *Runtime) Ephemeral() bool { return true }

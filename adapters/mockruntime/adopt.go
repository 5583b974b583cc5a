package mockruntime

import "herd/domain"

// Adopt takes pod p as the process that ran it on the mock left it, as
// its recorded status and deletion say: running since its containers
// started, ended, asked to shut down, or stopped. herd's what-if starts
// its engine on the past with a fresh mock, and without this every pod
// that was running at its window's start would be absent from it and
// started again, as after a restart of herd — which the window's start
// is not. A pod the runtime holds already, a pod not bound to a node,
// one removed from its runtime, or one that never started is left
// alone.
func (r *Runtime) Adopt(p domain.Pod) {
	if p.Spec.NodeName == "" || !p.Exists() || p.Status.StartTime.IsZero() {
		return
	}
	if d := p.Deletion; d != nil && !d.DeprovisionedAt.IsZero() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.pods[p.Key()]; ok && e.UID == p.UID {
		return
	}
	e := &entry{Pod: Pod{UID: p.UID}, run: podRun(p)}
	started := p.Status.StartTime
	var restarts int32
	var ended *domain.ContainerTerminated
	if len(p.Status.ContainerStatuses) > 0 {
		cs := p.Status.ContainerStatuses[0]
		restarts = cs.RestartCount
		switch {
		case cs.State.Running != nil:
			started = cs.State.Running.StartedAt
		case cs.State.Terminated != nil:
			ended = cs.State.Terminated
		case cs.State.Waiting != nil && cs.LastState.Terminated != nil:
			ended = cs.LastState.Terminated
		}
	}
	e.StartedAt = started
	switch {
	case ended != nil:
		e.State = domain.RuntimeState{Phase: domain.RuntimeExited, ExitCode: ended.ExitCode, FinishedAt: ended.FinishedAt, Restarts: restarts}
	default:
		e.State = domain.RuntimeState{Phase: domain.RuntimeRunning, Restarts: restarts}
		if e.run.ends {
			e.State.ExitsAt = started.Add(e.run.d)
		}
	}
	if d := p.Deletion; d != nil {
		switch {
		case !d.HaltedAt.IsZero() || !d.StoppedAt.IsZero():
			e.State = domain.RuntimeState{Phase: domain.RuntimeStopped}
			e.shutdownAt = d.ShutdownRequestedAt
		case !d.ShutdownRequestedAt.IsZero():
			e.shutdownAt = d.ShutdownRequestedAt
			if delay, ignores, err := shutdownDelay(p, r.cfg.ShutdownDelay); err == nil && !ignores && e.State.Phase == domain.RuntimeRunning {
				e.stopAt = d.ShutdownRequestedAt.Add(delay)
			}
		}
	}
	r.record(e, OpProvision, started)
	r.record(e, OpStart, started)
	r.pods[p.Key()] = e
}

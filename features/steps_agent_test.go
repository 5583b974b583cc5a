package features

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cucumber/godog"
	"go.uber.org/fx"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/clock"

	"herd/adapters/host"
	"herd/cmd/herd/app"
)

// agentProc is an in-process `herd agent` talking to the scenario's herd
// over its HTTP API, on herd's fake clock, with a host whose facts and
// metrics the steps set.
type agentProc struct {
	cfg  app.AgentConfig
	host *nodeHost
	app  *fx.App
	// extra are fx options of the scenario's own (a host's services).
	extra []fx.Option
	// services stands in for the host's service manager, if it has one.
	services *hostServices
}

// Steps about `herd agent`: registration, heartbeats, clean stops, and
// the pods it runs on its node.
func (w *world) registerAgentSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the agent of "([^"]+)" starts on an? (illumos|linux) host with (\d+) CPUs and (\S+) of memory, keeping (\S+) CPU and (\S+) for itself$`, w.agentStartsKeeping)
	sc.Step(`^the agent of "([^"]+)" runs on an? (illumos|linux) host with (\d+) CPUs and (\S+) of memory$`, w.agentRuns)
	sc.Step(`^the agent of "([^"]+)" stops$`, w.agentProcStops)
	sc.Step(`^the agent of "([^"]+)" starts again$`, w.agentStartsAgain)
	sc.Step(`^the host of "([^"]+)" has (\d+)% of its memory in use$`, w.hostMemoryInUse)
	sc.Step(`^the agent of "([^"]+)" has reported at (\S+)$`, w.agentReportedAt)
	sc.Step(`^pod "([^"]+)" comes to run on "([^"]+)" with IP "([^"]+)"$`, w.podComesToRun)
	sc.Step(`^pod "([^"]+)" comes to be gone$`, w.podComesToBeGone)
	sc.Step(`^pod "([^"]+)" comes to have condition (\w+)=(\w+)$`, w.podComesToHaveCondition)
}

// podComesToHaveCondition waits until the pod's condition typ has status,
// as an agent, which reaches herd over its API, reports it.
func (w *world) podComesToHaveCondition(ref, typ, status string) error {
	if err := eventually("pod "+ref+" "+typ+"="+status, func() error { return w.podHasCondition(ref, typ, status) }); err != nil {
		return err
	}
	return w.settle()
}

func (w *world) agentRuns(node, os string, cpus int, memory string) error {
	return w.agentStartsKeeping(node, os, cpus, memory, "0", "0")
}

func (w *world) agentStartsKeeping(node, os string, cpus int, memory, keepCPU, keepMemory string) error {
	if w.agent != nil {
		return errors.New("the scenario runs one agent")
	}
	mem, err := resource.ParseQuantity(memory)
	if err != nil {
		return err
	}
	kc, err := resource.ParseQuantity(keepCPU)
	if err != nil {
		return err
	}
	km, err := resource.ParseQuantity(keepMemory)
	if err != nil {
		return err
	}
	h := newNodeHost(os)
	h.facts.CPUs, h.facts.MemoryBytes = cpus, mem.Value()
	h.metrics.CPUCount, h.metrics.MemoryTotalBytes, h.metrics.MemoryAvailableBytes = cpus, mem.Value(), mem.Value()/2
	cfg := app.DefaultAgentConfig()
	cfg.Server, cfg.LogLevel, cfg.Version, cfg.MetricsListen = w.server.URL(), "error", "test", ""
	cfg.Node.Name, cfg.Node.ReserveCPU, cfg.Node.ReserveMemory = node, kc.MilliValue(), km.Value()
	w.agent = &agentProc{cfg: cfg, host: h}
	return w.startAgent()
}

// startAgent starts the agent and waits until herd has taken in what its
// start did: the registration and the first heartbeat.
func (w *world) startAgent() error {
	a := w.agent
	a.app = fx.New(app.AgentOptions(a.cfg, append([]fx.Option{
		fx.Decorate(func(clock.WithTicker) clock.WithTicker { return w.clock }),
		fx.Decorate(func(host.Source) host.Source { return a.host }),
	}, a.extra...)...), fx.NopLogger)
	if err := a.app.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startStopTimeout)
	defer cancel()
	if err := a.app.Start(ctx); err != nil {
		a.app = nil
		return fmt.Errorf("start the agent: %w", err)
	}
	return w.settle()
}

func (w *world) agentProcStops(string) error {
	if err := w.stopAgent(); err != nil {
		return err
	}
	return w.settle()
}

// stopAgent stops the scenario's agent, if it runs one.
func (w *world) stopAgent() error {
	if w.agent == nil || w.agent.app == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), startStopTimeout)
	defer cancel()
	err := w.agent.app.Stop(ctx)
	w.agent.app = nil
	return err
}

func (w *world) agentStartsAgain(string) error {
	if w.agent == nil {
		return errors.New("no agent ran before")
	}
	return w.startAgent()
}

func (w *world) hostMemoryInUse(_ string, percent int) error {
	h := w.agent.host
	h.mu.Lock()
	defer h.mu.Unlock()
	h.metrics.MemoryAvailableBytes = h.metrics.MemoryTotalBytes * int64(100-percent) / 100
	return nil
}

// eventually waits, on the wall clock, for something the agent does by
// itself once herd's clock has moved: it reports and polls on its own.
func eventually(what string, cond func() error) error {
	deadline := time.Now().Add(settleTimeout)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		err := cond()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %s: %w", what, settleTimeout, err)
		}
		<-tick.C
	}
}

// agentReportedAt waits for the heartbeat the agent sends when its
// interval comes round on herd's clock, then lets herd's reconcilers
// take it in.
func (w *world) agentReportedAt(node, at string) error {
	want, err := w.at(at)
	if err != nil {
		return err
	}
	if err := eventually("the heartbeat", func() error {
		n, err := w.node(node)
		if err != nil {
			return err
		}
		got, err := time.Parse(time.RFC3339, n.Annotations[annotationHeartbeat])
		if err != nil || !got.Equal(want) {
			return fmt.Errorf("last heartbeat %q, want %s", n.Annotations[annotationHeartbeat], at)
		}
		return nil
	}); err != nil {
		return err
	}
	return w.settle()
}

func (w *world) podComesToRun(ref, node, ip string) error {
	if err := eventually("pod "+ref+" running", func() error {
		if err := w.podIsBoundTo(ref, node); err != nil {
			return err
		}
		return w.podRunsWithIP(ref, ip)
	}); err != nil {
		return err
	}
	return w.settle()
}

func (w *world) podComesToBeGone(ref string) error {
	if err := eventually("pod "+ref+" gone", func() error {
		r, err := w.do(http.MethodGet, podURL(ref), "", nil)
		if err != nil {
			return err
		}
		if r.code != http.StatusNotFound {
			return fmt.Errorf("pod %s: %d", ref, r.code)
		}
		return nil
	}); err != nil {
		return err
	}
	return w.settle()
}

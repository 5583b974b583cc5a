package kubelet

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/utils/clock"

	"herd/domain"
	"herd/projections"
)

// Sink is the adapter's output port: everything the pollers tell herd.
// Commands implements it with domain commands; tests record the calls.
type Sink interface {
	// RegisterNode registers a kubelet's node unless herd already knows
	// it as a running kubelet node. restarted registers it again all the
	// same, as a restart, because the kubelet itself restarted.
	RegisterNode(ctx context.Context, reg domain.Registration, restarted bool) error
	// RecordHeartbeat records a poll that reached the kubelet, ending any
	// scrape failure the node had.
	RecordHeartbeat(ctx context.Context, node string, hb domain.RecordHeartbeat) error
	// RecordScrapeFailure notes why herd cannot poll the kubelet.
	RecordScrapeFailure(ctx context.Context, node string, f domain.RecordScrapeFailure) error
	// ObservePods reports every pod the kubelet runs, as it reports them;
	// pods herd observed on the node before and the kubelet no longer
	// lists are gone.
	ObservePods(ctx context.Context, node string, pods []domain.ObservePod) error
	// ObserveMachine records what the kubelet's /spec says of its
	// machine, for what the kubelet gave no figure of.
	ObserveMachine(ctx context.Context, node string, m domain.ObserveMachine) error
	// StopObserving says herd no longer polls the node's kubelet: its
	// target was removed.
	StopObserving(ctx context.Context, node string) error
}

// PodStore is where observed pods are recorded: projections.Writer and
// projections.PodView together.
type PodStore interface {
	// UpdatePods runs several pod updates in one transaction.
	UpdatePods(ctx context.Context, updates []projections.PodUpdate) ([]domain.Pod, error)
	// List lists pods.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// Commands is the Sink that acts through domain commands, at the time of
// herd's clock.
type Commands struct {
	Nodes domain.NodeRepository
	Pods  PodStore
	// Namespaces, when set, is where the namespaces of observed pods are
	// made to exist (see ensureNamespaces).
	Namespaces NamespaceStore
	Clock      clock.PassiveClock
}

var _ Sink = (*Commands)(nil)

// messageStopped is Ready's message on a kubelet node herd stopped polling.
const messageStopped = "herd no longer polls this kubelet: its target was removed"

// RegisterNode implements Sink. The node keeps the UID herd gave it first.
func (c *Commands) RegisterNode(ctx context.Context, reg domain.Registration, restarted bool) error {
	now := c.Clock.Now()
	_, err := c.Nodes.UpdateNode(ctx, reg.Name, func(n domain.Node) ([]domain.Event, error) {
		if n.Exists() && n.Kind != domain.KindKubelet {
			return nil, fmt.Errorf("node %q is a %s node, not this kubelet's: %w", n.Name, n.Kind, domain.ErrConflict)
		}
		if n.Exists() && n.AgentState != domain.AgentStopped && !restarted {
			return nil, nil
		}
		if n.Exists() {
			reg.UID = n.UID
		}
		return domain.DecideNode(n, domain.RegisterNode{Registration: reg}, now)
	})
	return err
}

// RecordHeartbeat implements Sink: ClearScrapeFailure and the heartbeat,
// in one transaction.
func (c *Commands) RecordHeartbeat(ctx context.Context, node string, hb domain.RecordHeartbeat) error {
	now := c.Clock.Now()
	_, err := c.Nodes.UpdateNode(ctx, node, func(n domain.Node) ([]domain.Event, error) {
		return domain.DecideNodeSequence(n, now, domain.ClearScrapeFailure{}, hb)
	})
	return err
}

// RecordScrapeFailure implements Sink.
func (c *Commands) RecordScrapeFailure(ctx context.Context, node string, f domain.RecordScrapeFailure) error {
	now := c.Clock.Now()
	_, err := c.Nodes.UpdateNode(ctx, node, func(n domain.Node) ([]domain.Event, error) {
		return domain.DecideNode(n, f, now)
	})
	return err
}

// ObserveMachine implements Sink.
func (c *Commands) ObserveMachine(ctx context.Context, node string, m domain.ObserveMachine) error {
	now := c.Clock.Now()
	_, err := c.Nodes.UpdateNode(ctx, node, func(n domain.Node) ([]domain.Event, error) {
		return domain.DecideNode(n, m, now)
	})
	return err
}

// ObservePods implements Sink: one ObservePod per reported pod and one
// ForgetObservedPod per pod that left the node, in one transaction. A pod
// the domain refuses (a name herd's own pods hold, a name that is not
// valid) is left out and named in the error; the others are recorded.
func (c *Commands) ObservePods(ctx context.Context, node string, pods []domain.ObservePod) error {
	return c.observe(ctx, node, pods)
}

// StopObserving implements Sink: the node is deregistered, so that the
// health rules leave a node nobody polls alone instead of calling it
// unreachable, and its observed pods are forgotten. A node herd never
// registered is no error.
func (c *Commands) StopObserving(ctx context.Context, node string) error {
	now := c.Clock.Now()
	_, err := c.Nodes.UpdateNode(ctx, node, func(n domain.Node) ([]domain.Event, error) {
		if !n.Exists() || n.Kind != domain.KindKubelet {
			return nil, nil
		}
		return domain.DecideNode(n, domain.DeregisterNode{Message: messageStopped}, now)
	})
	if err != nil {
		return err
	}
	return c.observe(ctx, node, nil)
}

func (c *Commands) observe(ctx context.Context, node string, pods []domain.ObservePod) error {
	kubelet := domain.SourceKubelet
	known, _, err := c.Pods.List(ctx, projections.PodFilter{NodeName: node, Source: &kubelet})
	if err != nil {
		return err
	}
	now := c.Clock.Now()
	var (
		updates []projections.PodUpdate
		refused []error
		listed  = make(map[string]bool, len(pods))
	)
	for _, op := range pods {
		listed[op.Namespace+"/"+op.Name] = true
		updates = append(updates, projections.PodUpdate{Namespace: op.Namespace, Name: op.Name,
			Update: func(p domain.Pod) ([]domain.Event, error) {
				evs, err := domain.DecidePod(p, op, now)
				if errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrInvalid) {
					refused = append(refused, err)
					return nil, nil
				}
				return evs, err
			}})
	}
	for _, p := range known {
		if !listed[p.Key()] {
			updates = append(updates, projections.PodUpdate{Namespace: p.Namespace, Name: p.Name,
				Update: func(p domain.Pod) ([]domain.Event, error) {
					return domain.DecidePod(p, domain.ForgetObservedPod{}, now)
				}})
		}
	}
	if len(updates) == 0 {
		return nil
	}
	if err := c.ensureNamespaces(ctx, pods); err != nil {
		return err
	}
	if _, err := c.Pods.UpdatePods(ctx, updates); err != nil {
		return err
	}
	return errors.Join(refused...)
}

package kubelet

import (
	"context"
	"errors"

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
	// scrape failure the node had. becameReady reports that this
	// heartbeat turned the node's Ready to True: herd had it not Ready
	// (a late heartbeat, herd busy or away), and marked its pods not
	// ready with it.
	RecordHeartbeat(ctx context.Context, node string, hb domain.RecordHeartbeat) (becameReady bool, err error)
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

// PodStore is where observed pods are recorded: the pods' batch of
// commands and projections.PodView together.
type PodStore interface {
	// ExecuteBatch runs several pod commands in one transaction.
	domain.BatchExecutor[domain.Pod, domain.PodCommand]
	// List lists pods.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// Commands is the Sink that acts through domain commands.
type Commands struct {
	Nodes domain.Executor[domain.Node, domain.NodeCommand]
	Pods  PodStore
	// Namespaces, when set, is where the namespaces of observed pods are
	// made to exist (see ensureNamespaces).
	Namespaces NamespaceStore
}

var _ Sink = (*Commands)(nil)

// messageStopped is Ready's message on a kubelet node herd stopped polling.
const messageStopped = "herd no longer polls this kubelet: its target was removed"

// RegisterNode implements Sink. The node keeps the UID herd gave it first.
func (c *Commands) RegisterNode(ctx context.Context, reg domain.Registration, restarted bool) error {
	_, err := c.Nodes.Execute(ctx, domain.Key{Name: reg.Name}, domain.RegisterKubeletNode{Registration: reg, Restarted: restarted})
	return err
}

// RecordHeartbeat implements Sink: ClearScrapeFailure and the heartbeat,
// in one transaction. The node's Ready turned True with this heartbeat
// when it did so at the heartbeat's own time.
func (c *Commands) RecordHeartbeat(ctx context.Context, node string, hb domain.RecordHeartbeat) (bool, error) {
	n, err := c.Nodes.Execute(ctx, domain.Key{Name: node}, domain.NodeSequence{domain.ClearScrapeFailure{}, hb})
	if err != nil {
		return false, err
	}
	ready, ok := n.Condition(domain.ConditionReady)
	return ok && ready.Status == domain.ConditionTrue && ready.LastTransitionTime.Equal(ready.LastHeartbeatTime), nil
}

// RecordScrapeFailure implements Sink.
func (c *Commands) RecordScrapeFailure(ctx context.Context, node string, f domain.RecordScrapeFailure) error {
	_, err := c.Nodes.Execute(ctx, domain.Key{Name: node}, f)
	return err
}

// ObserveMachine implements Sink.
func (c *Commands) ObserveMachine(ctx context.Context, node string, m domain.ObserveMachine) error {
	_, err := c.Nodes.Execute(ctx, domain.Key{Name: node}, m)
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
	_, err := c.Nodes.Execute(ctx, domain.Key{Name: node}, domain.DeregisterKubeletNode{Message: messageStopped})
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
	var (
		updates []domain.Keyed[domain.PodCommand]
		listed  = make(map[string]bool, len(pods))
	)
	for _, op := range pods {
		listed[op.Namespace+"/"+op.Name] = true
		// Lenient: a pod the domain refuses is left out, the others go.
		updates = append(updates, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: op.Namespace, Name: op.Name},
			Command: op, Lenient: true})
	}
	for _, p := range known {
		if !listed[p.Key()] {
			updates = append(updates, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: p.Namespace, Name: p.Name},
				Command: domain.ForgetObservedPod{}})
		}
	}
	if len(updates) == 0 {
		return nil
	}
	if err := c.ensureNamespaces(ctx, pods); err != nil {
		return err
	}
	_, refused, err := c.Pods.ExecuteBatch(ctx, updates)
	if err != nil {
		return err
	}
	return errors.Join(refused...)
}

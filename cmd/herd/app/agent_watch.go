package app

import (
	"context"
	"errors"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/herdclient"
	"herd/domain"
	"herd/reconcilers"
)

// podWatchTimeout is how long one watch of the node's pods lasts before
// herd ends it and the agent resumes from where it got: short enough that
// a connection a proxy silently dropped is noticed within minutes, as
// client-go's reflectors use 5–10 minutes.
const podWatchTimeout = 5 * time.Minute

// podWatchRetry is the wait before watching or listing again after herd
// could not be reached.
const podWatchRetry = 2 * time.Second

// podSource is herd's API as the follower reads it.
type podSource interface {
	ListPods(ctx context.Context, node string) ([]domain.Pod, string, error)
	WatchPods(ctx context.Context, node, rv string, timeout time.Duration, fn func(herdclient.PodEvent)) (string, error)
}

var _ podSource = (*herdclient.Client)(nil)

// podFollower follows the node's pods on herd with a watch and queues
// each changed pod for the agent's reconcilers at once, instead of their
// waiting for the next --poll-interval. It lists once to learn where to
// start, resumes every watch from the last resourceVersion it saw, and
// lists again only when herd answers 410 Expired (its history no longer
// reaches back that far). The reconcilers' resync stays as the safety
// net that checks every pod against the runtime.
type podFollower struct {
	src     podSource
	node    string
	enqueue func(key reconcilers.Key)
	clock   clock.WithTicker
	timeout time.Duration
	log     *zap.Logger
	// relisted counts lists after a 410, for tests and the log.
	relisted func()

	rv string
}

// run follows until ctx ends.
func (f *podFollower) run(ctx context.Context) {
	for ctx.Err() == nil {
		if f.rv == "" {
			pods, rv, err := f.src.ListPods(ctx, f.node)
			if err != nil {
				f.wait(ctx, "could not list the node's pods; trying again", err)
				continue
			}
			for _, p := range pods {
				f.enqueue(podKey(p))
			}
			f.rv = rv
		}
		rv, err := f.src.WatchPods(ctx, f.node, f.rv, f.timeout, func(ev herdclient.PodEvent) {
			f.log.Debug("pod changed", zap.String("pod", ev.Pod.Key()), zap.String("type", ev.Type))
			f.enqueue(podKey(ev.Pod))
		})
		f.rv = rv
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, herdclient.ErrExpired):
			f.log.Info("herd no longer has the history to resume the watch; listing the node's pods again",
				zap.String("resourceVersion", rv), zap.Error(err))
			f.rv = ""
			if f.relisted != nil {
				f.relisted()
			}
		case err != nil:
			f.wait(ctx, "the watch of the node's pods broke; resuming", err)
		}
	}
}

// podKey is the agent's reconcilers' key of pod p.
func podKey(p domain.Pod) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.PodAggregate, Namespace: p.Namespace, Name: p.Name}
}

// wait logs err and waits podWatchRetry, or until ctx ends.
func (f *podFollower) wait(ctx context.Context, msg string, err error) {
	if ctx.Err() != nil {
		return
	}
	f.log.Warn(msg, zap.String("resourceVersion", f.rv), zap.Error(err))
	t := f.clock.NewTimer(podWatchRetry)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	}
}

// startPodFollower runs the follower from the app's start to its stop,
// queueing pods for the agent's reconcilers.
func startPodFollower(lc fx.Lifecycle, cfg AgentConfig, c *herdclient.Client, m *reconcilers.Manager, clk clock.WithTicker, met *agentMetrics, log *zap.Logger) {
	f := &podFollower{src: c, node: cfg.Node.Name, enqueue: m.Enqueue, clock: clk, timeout: podWatchTimeout,
		log: log.Named("watch"), relisted: met.podRelists.Inc}
	runInBackground(lc, f.run)
}

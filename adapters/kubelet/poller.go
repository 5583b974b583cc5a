package kubelet

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	"herd/domain"
)

// The endpoints a poller reads.
const (
	endpointHealthz  = "/healthz"
	endpointSyncLoop = "/healthz/syncloop"
	endpointSummary  = "/stats/summary"
	endpointPods     = "/pods"
	endpointConfigz  = "/configz"
	endpointResource = "/metrics/resource"
	endpointProbes   = "/metrics/probes"
	endpointSpec     = "/spec"
	endpointCadvisor = "/metrics/cadvisor"
	endpointMetrics  = "/metrics"
)

// annotationKubeletURL names, on a kubelet node, the URL herd polls.
const annotationKubeletURL = "herd.dev/kubelet-url"

// poller polls one kubelet for as long as its context lives. Its run
// goroutine owns every field but status; one poller never waits for
// another.
type poller struct {
	target  domain.KubeletTarget
	cfg     Config
	sink    Sink
	clock   clock.Clock
	log     *zap.Logger
	metrics *Metrics
	jitter  func() float64

	client *client

	// What the kubelet said last.
	registered     bool
	kubeletStarted time.Time
	settings       settings
	probes         probeFailures
	usage          usage
	pods           *corev1.PodList
	syncLoop       *Failure
	// signals are the thresholds of the conditions below; throttle,
	// network and runtime follow /metrics/cadvisor's and /metrics'
	// counters from one slow poll to the next; version is the kubelet's
	// own, from /metrics.
	signals  Signals
	throttle throttling
	network  networkErrors
	runtime  runtimeHealth
	version  string
	// notServed holds the endpoints that answered 404 after herd had
	// judged conditions from them: those conditions are Unknown.
	notServed map[string]bool
	// spec is the machine of the last /spec, nil until one answered;
	// specDue asks the next slow fetch to read it again, and slowPolls
	// counts slow fetches, to read it every specEvery.
	spec      *machineSpec
	specDue   bool
	slowPolls int
	// given is the capacity the kubelet gave itself (summary, /configz)
	// at the last registration; observed is the ObserveMachine last
	// delivered, so that an unchanged machine costs no transaction.
	given    domain.ResourceList
	observed *domain.ObserveMachine
	// delivered are the pods last reported to the sink, so that an
	// unchanged list costs no transaction.
	delivered []domain.ObservePod

	// failures counts heartbeat polls that failed in a row; recorded is
	// the scrape failure reason last recorded on the node.
	failures int
	recorded string
	// problems holds, by endpoint, the reason last logged, so that a
	// broken endpoint is logged when it breaks, not on every poll.
	problems map[string]string
	// complaints holds, by what failed, the error last logged.
	complaints map[string]string

	nextStats, nextSlow time.Time

	mu     sync.Mutex
	status TargetStatus
}

// TargetStatus is what a poller is doing, for tests and operators.
type TargetStatus struct {
	Name string
	// Waiting is true while the poller waits for Next; false while it
	// polls.
	Waiting bool
	// Next is when it polls next.
	Next time.Time
	// Heartbeats counts the heartbeats it recorded.
	Heartbeats int64
	// Failures counts heartbeat polls that failed in a row.
	Failures int
	// LastFailure is the latest failure of any request, nil if none yet.
	LastFailure *Failure
}

func newPoller(t domain.KubeletTarget, cfg Config, sink Sink, clk clock.Clock, log *zap.Logger, m *Metrics, jitter func() float64) *poller {
	return &poller{
		target: t, cfg: cfg, sink: sink, clock: clk, metrics: m, jitter: jitter,
		log:        log.With(zap.String("node", t.Name), zap.String("url", t.URL)),
		settings:   defaultSettings(),
		signals:    cfg.Signals.withDefaults(),
		problems:   map[string]string{},
		complaints: map[string]string{},
		status:     TargetStatus{Name: t.Name},
	}
}

// run polls until ctx ends: the heartbeat poll (/healthz, /stats/summary)
// every StatsInterval, or after a backoff while it fails, and the rest
// every Interval while the kubelet answers. Times come from herd's clock.
func (p *poller) run(ctx context.Context) {
	defer func() {
		if p.client != nil {
			p.client.close()
		}
	}()
	now := p.clock.Now()
	p.nextStats, p.nextSlow = now, now.Add(p.cfg.Interval)
	for ctx.Err() == nil {
		now = p.clock.Now()
		switch {
		case !now.Before(p.nextStats):
			p.safely(func() { p.statsPoll(ctx, now) })
		case p.failures == 0 && !now.Before(p.nextSlow):
			p.safely(func() { p.slowPoll(ctx, now) })
		default:
			next := p.nextStats
			if p.failures == 0 && p.nextSlow.Before(next) {
				next = p.nextSlow
			}
			t := p.clock.NewTimer(next.Sub(now))
			p.setWaiting(true, next)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C():
			}
			p.setWaiting(false, next)
		}
	}
}

// safely runs one poll, turning a panic (a bug, in herd or a library,
// met by something a kubelet sent) into a logged error, so that one
// kubelet's odd answer never takes the poller, or herd, down. The poll's
// schedule was set before it ran, so the next one comes in its time.
func (p *poller) safely(poll func()) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("a poll of the kubelet panicked; herd polls it again in its time",
				zap.Any("panic", r), zap.StackSkip("stack", 1))
			p.metrics.observe(p.target.Name, "poll", 0, &Failure{Reason: ReasonPanic})
		}
	}()
	poll()
}

// statsPoll is the heartbeat: /healthz, then /stats/summary. Any failure
// but an unreadable summary means no heartbeat; the health rules take it
// from there.
func (p *poller) statsPoll(ctx context.Context, now time.Time) {
	p.nextStats = now.Add(p.cfg.StatsInterval)
	if p.client == nil {
		c, err := newClient(p.target, p.clock, p.cfg.Timeout, p.cfg.TokenDir)
		if err != nil {
			p.fail(ctx, now, asFailure(endpointHealthz, err))
			return
		}
		p.client = c
	}
	if _, f := p.scrape(ctx, endpointHealthz, nil); f != nil {
		p.fail(ctx, now, f)
		return
	}
	if p.syncLoop != nil {
		if _, f := p.scrape(ctx, endpointSyncLoop, nil); f != nil {
			p.fail(ctx, now, f)
			return
		}
		p.syncLoop = nil
	}
	var (
		sum     nodeSummary
		decoded bool
	)
	_, f := p.scrape(ctx, endpointSummary, func(body []byte) (err error) {
		sum, err = decodeSummary(body)
		return err
	})
	switch {
	case f == nil:
		decoded = true
	case f.Reason != ReasonMalformed:
		p.fail(ctx, now, f)
		return
	}
	p.note(endpointSummary, f)

	recovering := p.failures > 0 || !p.registered
	p.failures = 0
	p.metrics.setUp(p.target.Name, true)
	if recovering {
		// Fresh settings and pods for a first registration, and after an
		// outage, during which the slow poll was suspended. What does not
		// answer now is done without: /healthz and the summary did, so
		// the node gets its heartbeat, and the next slow poll tries again.
		p.nextSlow = now.Add(p.cfg.Interval)
		p.specDue = true
		p.slowFetch(ctx)
		if p.syncLoop != nil {
			p.fail(ctx, now, p.syncLoop)
			return
		}
	}
	restarted := decoded && !p.kubeletStarted.IsZero() && !sum.KubeletStarted.IsZero() && !sum.KubeletStarted.Equal(p.kubeletStarted)
	if decoded && !sum.KubeletStarted.IsZero() {
		p.kubeletStarted = sum.KubeletStarted
	}
	if restarted {
		// A reboot restarts the kubelet: a new boot ID, perhaps other
		// cores or memory.
		p.readSpec(ctx)
	}
	if !p.registered || restarted {
		p.observed = nil
		if err := p.sink.RegisterNode(ctx, p.registration(sum), restarted); err != nil {
			p.complain(ctx, "cannot register the kubelet's node", err)
			return
		}
		if restarted {
			p.log.Info("the kubelet restarted", zap.Time("started", sum.KubeletStarted))
		}
		p.registered = true
	}
	hb := domain.RecordHeartbeat{Reported: []domain.ReportedCondition{readyCondition()}}
	if decoded && !sum.empty() {
		m := p.withUsage(sum.Metrics)
		hb.Kubelet = &m
		hb.Reported = append(hb.Reported, pressureConditions(m, p.settings.Thresholds)...)
		if c, ok := cpuPressure(m, p.spec, p.signals.CPUPercent); ok {
			hb.Reported = append(hb.Reported, c)
		}
	}
	hb.Reported = append(hb.Reported, p.slowConditions()...)
	becameReady, err := p.sink.RecordHeartbeat(ctx, p.target.Name, hb)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		// The node was deleted while its kubelet runs: register again.
		p.log.Info("the kubelet's node was deleted; registering it again")
		p.registered = false
		return
	case err != nil:
		p.complain(ctx, "cannot record the kubelet's heartbeat", err)
		// herd may have marked the node silent meanwhile, and its pods
		// not ready: report them again, changed or not, once it can.
		p.delivered = nil
		return
	}
	if p.recorded != "" {
		p.log.Info("herd polls the kubelet again", zap.String("after", p.recorded))
		p.recorded = ""
	}
	p.mu.Lock()
	p.status.Heartbeats++
	p.status.Failures = 0
	p.mu.Unlock()
	p.deliverMachine(ctx)
	if recovering || becameReady {
		// While herd heard nothing (the kubelet away, or its heartbeats
		// late), it marked the node's pods not ready as the node went
		// silent: report them again even when the kubelet's list is the
		// same, so that what it says stands.
		p.delivered = nil
		p.deliverPods(ctx)
	}
}

// slowPoll reads what changes slowly: the sync loop's health, settings,
// probe and resource figures, and the pods, which it then reports.
func (p *poller) slowPoll(ctx context.Context, now time.Time) {
	p.nextSlow = now.Add(p.cfg.Interval)
	if !p.slowFetch(ctx) || p.syncLoop != nil {
		p.nextStats = now // let the heartbeat poll record why, now
		return
	}
	p.deliverMachine(ctx)
	p.deliverPods(ctx)
}

// slowFetch reads /healthz/syncloop, /configz, /spec (when due),
// /metrics/probes, /metrics/resource, /metrics/cadvisor, /metrics and
// /pods into the poller. An endpoint that answers badly keeps what it
// said last; one that is not served (404) is done without. It returns
// false when the kubelet could not be reached at all.
func (p *poller) slowFetch(ctx context.Context) bool {
	p.slowPolls++
	specDue := p.spec == nil || p.specDue || p.slowPolls%specEvery == 0
	steps := []struct {
		endpoint string
		decode   func([]byte) error
		missing  func()
		skip     bool
	}{
		{endpointSyncLoop, nil, nil, false},
		{endpointConfigz, func(b []byte) (err error) {
			s, err := decodeConfigz(b)
			if err == nil {
				p.useSettings(s)
			}
			return err
		}, func() { p.settings = defaultSettings() }, false},
		{endpointSpec, p.decodeSpec, nil, !specDue},
		{endpointProbes, func(b []byte) (err error) {
			pf, err := decodeProbes(b)
			if err == nil {
				p.probes = pf
			}
			return err
		}, func() { p.probes = nil }, false},
		{endpointResource, func(b []byte) (err error) {
			u, err := decodeResource(b)
			if err == nil {
				p.usage = u
				if u.ScrapeError {
					err = errors.New("the kubelet reports resource_scrape_error 1: its own resource figures are incomplete")
				}
			}
			return err
		}, func() { p.usage = usage{} }, false},
		{endpointCadvisor, p.decodeCadvisor, func() {
			p.stopServing(endpointCadvisor, p.throttle.known || p.network.known)
			p.throttle, p.network = throttling{}, networkErrors{}
		}, false},
		{endpointMetrics, p.decodeKubeletMetrics, func() {
			p.stopServing(endpointMetrics, p.runtime.known)
			p.runtime = runtimeHealth{}
		}, false},
		{endpointPods, func(b []byte) (err error) {
			l, err := decodePods(b)
			if err == nil {
				p.pods = &l
			}
			return err
		}, func() { p.pods = nil }, false},
	}
	for _, s := range steps {
		if s.skip {
			continue
		}
		notFound, f := p.scrape(ctx, s.endpoint, s.decode)
		if f != nil && f.connectionLevel() {
			return false
		}
		if s.endpoint == endpointSyncLoop {
			p.syncLoop = nil
			if f != nil && f.Reason == ReasonUnhealthy {
				p.syncLoop = f
			}
		}
		if s.endpoint == endpointSpec && f == nil {
			p.specDue = false
		}
		if notFound && s.missing != nil {
			s.missing()
		}
		p.note(s.endpoint, f)
	}
	return true
}

// useSettings takes a kubelet's /configz, logging what herd could not read.
func (p *poller) useSettings(s settings) {
	for _, err := range s.Problems {
		p.log.Warn("a kubelet setting herd cannot read is left out", zap.Error(err))
	}
	p.settings = s
}

// deliverPods reports the pods of the last /pods, if the node is
// registered and the kubelet served them.
func (p *poller) deliverPods(ctx context.Context) {
	if !p.registered || p.pods == nil {
		return
	}
	pods := ObservedPods(p.target.Name, *p.pods, p.probes)
	p.withThrottling(pods)
	if p.delivered != nil && reflect.DeepEqual(pods, p.delivered) {
		return
	}
	if err := p.sink.ObservePods(ctx, p.target.Name, pods); err != nil {
		p.complain(ctx, "cannot record the kubelet's pods", err)
		return
	}
	p.delivered = pods
}

// scrape fetches one endpoint and decodes its answer, counting both in the
// metrics. An answer that does not decode is a MalformedResponse failure.
func (p *poller) scrape(ctx context.Context, endpoint string, decode func([]byte) error) (notFound bool, f *Failure) {
	start := time.Now() // wall time: what the request cost, not a domain time
	body, notFound, f := p.client.get(ctx, endpoint)
	if f == nil && !notFound && decode != nil {
		if err := decode(body); err != nil {
			f = &Failure{Endpoint: endpoint, Reason: ReasonMalformed, Message: err.Error()}
		}
	}
	p.metrics.observe(p.target.Name, endpoint, time.Since(start), f)
	if f != nil {
		p.mu.Lock()
		p.status.LastFailure = f
		p.mu.Unlock()
	}
	return notFound, f
}

// note logs an endpoint's failure when its reason changes, and its
// recovery; f is nil on success.
func (p *poller) note(endpoint string, f *Failure) {
	prev := p.problems[endpoint]
	switch {
	case f == nil && prev != "":
		delete(p.problems, endpoint)
		p.log.Info("a kubelet endpoint answers again", zap.String("endpoint", endpoint), zap.String("after", prev))
	case f != nil && f.Reason != prev:
		p.problems[endpoint] = f.Reason
		p.log.Warn("a kubelet endpoint answers badly; herd keeps what it said last",
			zap.String("endpoint", endpoint), zap.String("reason", f.Reason), zap.String("message", f.Message))
	}
}

// complain logs a failure to write what the kubelet said: at error level
// when it is new, at debug level when it repeats on every poll (a node
// name another kind of node holds, say), and not at all while herd stops.
func (p *poller) complain(ctx context.Context, what string, err error) {
	if ctx.Err() != nil {
		return
	}
	if p.complaints[what] == err.Error() {
		p.log.Debug(what, zap.Error(err))
		return
	}
	p.complaints[what] = err.Error()
	p.log.Error(what, zap.Error(err))
}

// fail handles a failed heartbeat poll: no heartbeat, a backoff, and the
// reason recorded on the node when it changed.
func (p *poller) fail(ctx context.Context, now time.Time, f *Failure) {
	p.failures++
	p.nextStats = now.Add(backoff(p.cfg.StatsInterval, p.cfg.MaxBackoff, p.failures, p.jitter()))
	p.metrics.setUp(p.target.Name, false)
	p.mu.Lock()
	p.status.Failures = p.failures
	p.status.LastFailure = f
	p.mu.Unlock()
	if f.Reason == p.recorded {
		return
	}
	p.log.Warn("cannot poll the kubelet; no heartbeats until it answers",
		zap.String("endpoint", f.Endpoint), zap.String("reason", f.Reason), zap.String("message", f.Message))
	err := p.sink.RecordScrapeFailure(ctx, p.target.Name, domain.RecordScrapeFailure{Reason: f.Reason, Message: f.Endpoint + ": " + f.Message})
	switch {
	case err == nil, errors.Is(err, domain.ErrNotFound): // a node never registered has nothing to record on
		p.recorded = f.Reason
	default:
		p.complain(ctx, "cannot record why the kubelet cannot be polled", err)
	}
}

// registration is what herd registers the kubelet's node with: capacity
// from the summary and /configz, allocatable as the kubelet computes it,
// addresses from the target and the pods' host IP.
func (p *poller) registration(sum nodeSummary) domain.Registration {
	reg := domain.Registration{
		Name: p.target.Name, UID: uuid.NewString(), Kind: domain.KindKubelet,
		Annotations: map[string]string{annotationKubeletURL: p.target.URL},
		Addresses:   []domain.Address{{Type: "Hostname", Address: p.target.Name}},
	}
	if ip := p.hostIP(); ip != "" {
		reg.Addresses = append([]domain.Address{{Type: "InternalIP", Address: ip}}, reg.Addresses...)
	}
	capacity := sum.capacity()
	if p.settings.MaxPods > 0 {
		capacity["pods"] = p.settings.MaxPods
	}
	p.given = maps.Clone(capacity)
	if p.spec != nil {
		for name, v := range p.spec.capacity() {
			if _, ok := capacity[name]; !ok {
				capacity[name] = v
			}
		}
		reg.Info.MachineID, reg.Info.SystemUUID, reg.Info.BootID = p.spec.MachineID, p.spec.SystemUUID, p.spec.BootID
	}
	reg.Info.AgentVersion = p.version
	if len(capacity) > 0 {
		reg.Capacity = capacity
		reg.Allocatable = p.settings.allocatable(capacity)
	}
	if u, err := url.Parse(p.target.URL); err == nil {
		if port, err := strconv.ParseInt(u.Port(), 10, 32); err == nil {
			reg.KubeletPort = int32(port)
		}
	}
	return reg
}

// hostIP is the node's IP as its pods report it.
func (p *poller) hostIP() string {
	if p.pods == nil {
		return ""
	}
	for _, pod := range p.pods.Items {
		if pod.Status.HostIP != "" {
			return pod.Status.HostIP
		}
	}
	return ""
}

// withUsage fills the CPU figure a summary left out from
// /metrics/resource's node_cpu_usage_seconds_total.
func (p *poller) withUsage(m domain.KubeletMetrics) domain.KubeletMetrics {
	if m.CPUUsageCoreNanoSeconds == nil && p.usage.NodeCPUSeconds != nil && *p.usage.NodeCPUSeconds >= 0 {
		v := uint64(*p.usage.NodeCPUSeconds * 1e9)
		m.CPUUsageCoreNanoSeconds = &v
	}
	if m.MemoryWorkingSetBytes == nil && p.usage.NodeMemoryWorkingSet != nil && *p.usage.NodeMemoryWorkingSet >= 0 {
		v := uint64(*p.usage.NodeMemoryWorkingSet)
		m.MemoryWorkingSetBytes = &v
	}
	return m
}

func (p *poller) setWaiting(waiting bool, next time.Time) {
	p.mu.Lock()
	p.status.Waiting, p.status.Next = waiting, next
	p.mu.Unlock()
}

// Status returns what the poller is doing.
func (p *poller) Status() TargetStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

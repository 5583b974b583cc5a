package httpapi

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"herd/domain"
)

// Priority levels, as kube-apiserver's API Priority and Fairness keeps
// them (its system-nodes level for the kubelets' heartbeats, workload
// levels below): when herd cannot keep up, what can wait is refused
// first, and a node's heartbeat last of all. Between heartbeats and the
// other writes come herd's own reconcilers, whose writes do not come
// over HTTP and are never refused here.
const (
	// levelExempt is what is answered from memory and says how herd is
	// (health, metrics, discovery, version): never refused, so that an
	// overloaded herd can still say so.
	levelExempt priorityLevel = iota
	// levelHeartbeats is the nodes' heartbeats: their status reports and
	// their leases' renewals in kube-node-lease. Never refused for herd
	// being behind, only past their own share (--max-heartbeats-inflight),
	// and a heartbeat refused so still counts for its node: it reached
	// herd (noteHeartbeat).
	levelHeartbeats
	// levelWrites is every other write.
	levelWrites
	// levelReads is gets, lists and watches.
	levelReads
)

// priorityLevel is a request's place in the order in which herd refuses
// requests it cannot take.
type priorityLevel int

// String is the level's name, as the metric of refused requests says it.
func (l priorityLevel) String() string {
	switch l {
	case levelHeartbeats:
		return "node-heartbeats"
	case levelWrites:
		return "writes"
	case levelReads:
		return "reads"
	}
	return "exempt"
}

// Defaults of how many requests of each level run at once: kube-apiserver's
// --max-requests-inflight and --max-mutating-requests-inflight, and
// herd's --max-heartbeats-inflight. The heartbeats' share is wider than
// the others because a heartbeat is cheap to take in and the group
// commit writes many at once (a group grows with what waits); it bounds
// how long an admitted heartbeat waits, about the share over what herd
// commits a second (1,000 over 8,000 renewals a second on two cores:
// an eighth of a second), where without a bound a fleet larger than
// herd can carry would make every heartbeat wait longer and longer.
const (
	DefaultMaxRequestsInflight         = 400
	DefaultMaxMutatingRequestsInflight = 200
	DefaultMaxHeartbeatsInflight       = 1000
	// shedRetryAfter is the Retry-After of a refused request, in
	// seconds, as API Priority and Fairness answers: client-go waits
	// that long and tries again.
	shedRetryAfter = 1
)

// priorityOf is the level of the request ri describes.
func priorityOf(r *http.Request, ri requestInfo) priorityLevel {
	if ri.Resource == "" {
		return levelExempt
	}
	if isHeartbeat(ri) {
		return levelHeartbeats
	}
	switch ri.Verb {
	case "get", "list", "watch":
		return levelReads
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return levelReads
	}
	return levelWrites
}

// isHeartbeat says whether ri is a node's heartbeat: a status report
// (PUT or PATCH of nodes/status), herd's agent's heartbeat (a POST of
// herd.dev's nodes/NAME/heartbeat), or a write of the node's lease in
// kube-node-lease.
func isHeartbeat(ri requestInfo) bool {
	write := ri.Verb == "update" || ri.Verb == "patch" || ri.Verb == "create"
	switch {
	case ri.Group == "" && ri.Resource == "nodes" && ri.Name != "" && write:
		return ri.Subresource == "status"
	case ri.Group == herdGroup && ri.Resource == "nodes" && ri.Name != "" && write:
		return ri.Subresource == "heartbeat"
	case ri.Group == coordinationGroup && ri.Resource == "leases" && ri.Subresource == "" && write:
		return ri.Namespace == domain.NodeLeaseNamespace
	}
	return false
}

// WriteBacklog says how far behind herd's write path is.
type WriteBacklog interface {
	// Behind reports how long the oldest write waiting for its commit
	// has waited, and whether that is past the threshold beyond which
	// herd counts as behind.
	Behind() (oldest time.Duration, behind bool)
}

// HeartbeatArrivals notes node heartbeats as they reach the API, before
// their writes join the queue, so that a heartbeat waiting for its write
// is not taken for a missing one.
type HeartbeatArrivals interface {
	// Arrive notes a heartbeat of node name at at; done says, once it is
	// answered, whether it counts (false when refused as the client's
	// mistake).
	Arrive(name string, at time.Time) (done func(kept bool))
}

// shares are the requests of each level running now, and the bounds.
type shares struct {
	mu      sync.Mutex
	running [levelReads + 1]int
	limit   [levelReads + 1]int
	shed    *prometheus.CounterVec
}

// newShares returns the shares cfg sets, counting refusals in a metric
// registered with reg when it is not nil.
func newShares(cfg Config, reg prometheus.Registerer) (*shares, error) {
	s := &shares{shed: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "herd_requests_shed_total",
		Help: "Requests refused with 429 Too Many Requests, by priority level (node-heartbeats, writes, reads) and reason (behind: herd's writes are behind; inflight: the level's share is full; expensive-reads: the share of reads of history is full).",
	}, []string{"level", "reason"})}
	s.limit[levelHeartbeats] = orDefault(cfg.MaxHeartbeatsInflight, DefaultMaxHeartbeatsInflight)
	s.limit[levelWrites] = orDefault(cfg.MaxMutatingRequestsInflight, DefaultMaxMutatingRequestsInflight)
	s.limit[levelReads] = orDefault(cfg.MaxRequestsInflight, DefaultMaxRequestsInflight)
	if reg != nil {
		if err := reg.Register(s.shed); err != nil {
			return nil, fmt.Errorf("the metric of refused requests: %w", err)
		}
	}
	return s, nil
}

// orDefault is v, def when v is zero, and no bound (0) when v is negative.
func orDefault(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// refused counts a request of level refused for reason.
func (sh *shares) refused(level priorityLevel, reason string) {
	sh.shed.WithLabelValues(level.String(), reason).Inc()
}

// take admits a request of level to its share, or says why not. A
// request of a long-running kind (a watch) is not counted, as
// kube-apiserver's in-flight limits leave watches out: they are bounded
// per user (watch_limit.go).
func (sh *shares) take(level priorityLevel, longRunning bool) (release func(), full bool) {
	if longRunning || sh.limit[level] == 0 {
		return func() {}, false
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.running[level] >= sh.limit[level] {
		return nil, true
	}
	sh.running[level]++
	var once sync.Once
	return func() {
		once.Do(func() {
			sh.mu.Lock()
			sh.running[level]--
			sh.mu.Unlock()
		})
	}, false
}

// admitPriority decides whether a request of level runs now. Exempt
// requests always do, heartbeats unless their own share is full. While
// herd's writes are behind, writes and reads are refused with 429 and
// Retry-After rather than queued behind the heartbeats; at other times,
// only once their level's share is full.
func (s *Server) admitPriority(level priorityLevel, longRunning bool) (release func(), err error) {
	if level == levelExempt {
		return func() {}, nil
	}
	if s.WritePath != nil && level != levelHeartbeats {
		if oldest, behind := s.WritePath.Behind(); behind {
			s.shares.refused(level, "behind")
			return nil, apierrors.NewTooManyRequests(fmt.Sprintf(
				"herd is behind: its oldest write has waited %s for its commit, so %s wait while node heartbeats go first; retry after %d second",
				oldest.Round(time.Millisecond), level, shedRetryAfter), shedRetryAfter)
		}
	}
	release, full := s.shares.take(level, longRunning)
	if full {
		s.shares.refused(level, "inflight")
		switch level {
		case levelHeartbeats:
			wait := s.heartbeatRetryAfter()
			return nil, apierrors.NewTooManyRequests(fmt.Sprintf(
				"too many node heartbeats at once: herd takes %d at a time (--max-heartbeats-inflight), so that those it takes are written promptly; this one still counts for its node; retry after %d seconds",
				s.shares.limit[level], wait), wait)
		case levelWrites:
			return nil, tooManyAtOnce(level, s.shares.limit[level], "--max-mutating-requests-inflight")
		}
		return nil, tooManyAtOnce(level, s.shares.limit[level], "--max-requests-inflight")
	}
	return release, nil
}

// heartbeatRetryAfter is the Retry-After, in seconds, of a heartbeat
// refused for its share: a quarter of the node monitor grace period (a
// kubelet renews its lease every quarter of the lease's duration), at
// least 1 and at most 10. A refused heartbeat already counted for its
// node, so its retry need not come sooner than the next renewal would;
// one that came after a second, as the other levels ask, would make each
// refused node send up to ten times as often (client-go retries ten
// times) and spend on refusals the CPU herd's writes need.
func (s *Server) heartbeatRetryAfter() int {
	wait := int(s.cfg.NodeMonitorGracePeriod / 4 / time.Second)
	if s.cfg.NodeMonitorGracePeriod == 0 {
		wait = int(nodeLeaseDurationSeconds / 4)
	}
	return max(shedRetryAfter, min(wait, maxHeartbeatRetryAfter))
}

// maxHeartbeatRetryAfter bounds heartbeatRetryAfter, in seconds: a
// kubelet's renewal interval.
const maxHeartbeatRetryAfter = 10

// tooManyAtOnce is the refusal of a request of level, other than a
// heartbeat, whose share of limit (set by flag) is full.
func tooManyAtOnce(level priorityLevel, limit int, flag string) error {
	return apierrors.NewTooManyRequests(fmt.Sprintf(
		"too many %s at once: herd runs %d at a time (%s), so that node heartbeats keep their share; retry after %d second",
		level, limit, flag, shedRetryAfter), shedRetryAfter)
}

// noteHeartbeat notes the heartbeat r carries as it arrives, before its
// write joins the queue; the returned func, called with the answer's
// code once it is answered, says whether it counted: a heartbeat the
// client got wrong (4xx, other than herd's own 429) does not.
func (s *Server) noteHeartbeat(ri requestInfo) func(code int) {
	// A lease created by POST names itself in its body, which is not
	// read here: the node is heard from its first renewal on.
	name := ri.Name
	if s.Heartbeats == nil || name == "" {
		return func(int) {}
	}
	if ri.Resource == "leases" {
		if _, ok := domain.NodeLeaseHolder(ri.Namespace, name); !ok {
			return func(int) {}
		}
	}
	done := s.Heartbeats.Arrive(name, s.Clock.Now())
	return func(code int) {
		done(code < 400 || code >= 500 || code == http.StatusTooManyRequests)
	}
}

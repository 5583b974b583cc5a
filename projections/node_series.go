package projections

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"herd/domain"
)

// NodeSeries is a Prometheus collector of one set of series per node that
// exists: its conditions, how much of its CPU, memory, disk and PIDs it
// uses, its load, restarts, heartbeats, jobs, agent state and whether it
// is cordoned, each labelled by node and kind (see README's "Per-node
// metrics").
//
// It is fed by the unit of work (Writer.ObserveNodes) with every node
// state herd commits, and filled once at start-up from the node view
// (Load); it never reads the log. A heartbeat costs it a map lookup and a
// few field copies under a mutex; the series themselves are computed only
// when Prometheus scrapes. Commits and scrapes may run concurrently.
type NodeSeries struct {
	clock clock.PassiveClock

	mu sync.Mutex
	// nodes holds the latest committed state of each node by name. Until
	// Load is done it also keeps deleted nodes as tombstones, so that an
	// older row read from the view cannot bring them back.
	nodes  map[string]*nodeSample
	loaded bool
}

// nodeSample is what NodeSeries keeps of one node: only what its series
// need. The pointers are the committed node's own, shared and never
// changed in place (domain.EvolveNode copies before it changes). The
// conditions are kept as their types and statuses alone, not as the
// node's slice: a sample outlives the committed node, and holding its
// conditions kept a slice of a few hundred bytes alive for every node of
// the fleet that nothing else needed.
type nodeSample struct {
	version       int64
	deleted       bool
	kind          string
	conditions    []conditionStatus
	metrics       *domain.Metrics
	kubelet       *domain.KubeletMetrics
	cpuMillis     int64
	maxJobs       int
	agentState    domain.AgentState
	unschedulable bool
	restarts      int
	lastHeartbeat time.Time
	// heartbeats counts the heartbeats committed since herd started.
	heartbeats uint64
}

var _ prometheus.Collector = (*NodeSeries)(nil)

// NewNodeSeries returns a NodeSeries that computes heartbeat ages with clk
// and is told of every node w commits. Load fills it with the nodes that
// exist already.
func NewNodeSeries(w *Writer, clk clock.PassiveClock) *NodeSeries {
	s := &NodeSeries{clock: clk, nodes: make(map[string]*nodeSample)}
	if w != nil {
		w.ObserveNodes(s.observe)
	}
	return s
}

// Load adds every node of the view that exists. States committed since
// NewNodeSeries are newer than the rows read here and win over them.
func (s *NodeSeries) Load(ctx context.Context, view *NodeView) error {
	list, _, err := view.List(ctx)
	if err != nil {
		return fmt.Errorf("per-node metrics: load the nodes: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range list {
		s.putLocked(n, 0)
	}
	for name, e := range s.nodes {
		if e.deleted {
			delete(s.nodes, name)
		}
	}
	s.loaded = true
	return nil
}

// observe is the Writer's observer: it keeps n and counts the heartbeats
// among evs.
func (s *NodeSeries) observe(n domain.Node, evs []domain.Event) {
	var beats uint64
	for _, ev := range evs {
		if _, ok := ev.(domain.HeartbeatRecorded); ok {
			beats++
		}
	}
	s.mu.Lock()
	s.putLocked(n, beats)
	s.mu.Unlock()
}

// putLocked keeps n unless a newer state of it is kept already, and adds
// beats to its heartbeats. s.mu must be held.
func (s *NodeSeries) putLocked(n domain.Node, beats uint64) {
	e := s.nodes[n.Name]
	if e != nil && e.version >= n.Version {
		return
	}
	if n.Deleted {
		if s.loaded {
			delete(s.nodes, n.Name)
		} else {
			s.nodes[n.Name] = &nodeSample{version: n.Version, deleted: true}
		}
		return
	}
	if e == nil {
		e = &nodeSample{}
		s.nodes[n.Name] = e
	}
	*e = nodeSample{
		version:       n.Version,
		kind:          string(n.Kind),
		conditions:    statusesOf(n.Conditions, e.conditions),
		metrics:       n.Metrics,
		kubelet:       n.KubeletMetrics,
		cpuMillis:     n.Capacity["cpu"],
		maxJobs:       n.MaxJobs,
		agentState:    n.AgentState,
		unschedulable: n.Unschedulable,
		restarts:      n.RestartCount,
		lastHeartbeat: n.LastHeartbeat,
		heartbeats:    e.heartbeats + beats,
	}
}

// conditionStatus is a condition as its series need it: its type and
// status (both strings a fleet shares).
type conditionStatus struct {
	Type   domain.ConditionType
	Status domain.ConditionStatus
}

// statusesOf is the types and statuses of conds: was itself when they
// are the same (most commits change no status), else a new slice.
func statusesOf(conds []domain.Condition, was []conditionStatus) []conditionStatus {
	if len(conds) == len(was) {
		same := true
		for i, c := range conds {
			if c.Type != was[i].Type || c.Status != was[i].Status {
				same = false
				break
			}
		}
		if same {
			return was
		}
	}
	if len(conds) == 0 {
		return nil
	}
	out := make([]conditionStatus, len(conds))
	for i, c := range conds {
		out[i] = conditionStatus{Type: c.Type, Status: c.Status}
	}
	return out
}

// namedSample is a node's sample and its name, as a scrape copies them.
type namedSample struct {
	name string
	nodeSample
}

// snapshot copies every existing node's sample, so that a scrape holds
// the lock only for the copy and never delays a commit by more.
func (s *NodeSeries) snapshot() []namedSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]namedSample, 0, len(s.nodes))
	for name, e := range s.nodes {
		if !e.deleted {
			out = append(out, namedSample{name: name, nodeSample: *e})
		}
	}
	return out
}

// Describe implements prometheus.Collector.
func (s *NodeSeries) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allNodeDescs() {
		ch <- d
	}
}

// Collect implements prometheus.Collector: the series of every node that
// exists, computed now.
func (s *NodeSeries) Collect(ch chan<- prometheus.Metric) {
	now := s.clock.Now()
	nodes := s.snapshot()
	slices.SortFunc(nodes, func(a, b namedSample) int {
		return cmp.Or(strings.Compare(a.kind, b.kind), strings.Compare(a.name, b.name))
	})
	collectNodes(ch, nodes, now)
}

// Package whatif replays a window of the log under other health settings
// and says what would have been different: which nodes would have gone
// NotReady (or not, or at another time), and which pods a NoExecute taint
// would have evicted (or not, or at another time).
//
// The replay reads the log and never writes: it folds every node, pod and
// node lease as it stood when the window began, then takes the window's
// events in order. What herd's health rules and taint-based evictions
// appended in reaction (events of system:herd:health and
// system:herd:noexecute), and everything those caused in turn (by
// causation id: a pod's termination, its replacement), are what happened;
// the replay leaves them out and decides them again with the domain's own
// rules (domain.Silent, MarkNodeUnreachable, SyncConditionTaints,
// AssessFleet, NoExecuteDeadline) under the settings asked for, on a
// clock that ticks every node-monitor-period. Every other event — the
// nodes' reports and lease renewals, what operators and the other
// reconcilers did — is taken as it came. What follows from a decision the
// replay makes differently (a replacement pod scheduled elsewhere, a drain
// an operator would not have started) is not simulated.
//
// herd's own downtime is an input, not a difference: the log records
// every start of the health rules (domain.HealthMonitorStarted), the
// replay runs no rule between the last record before a start and the
// start, and from each start it gives every node a full grace period, as
// herd did (Report.Downtimes).
package whatif

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/health"
)

// heartbeatType is a plain heartbeat's stored type.
var heartbeatType = domain.HeartbeatRecorded{}.EventType()

// Actors whose events the replay decides again.
const (
	healthActor    = "system:herd:health"
	noExecuteActor = "system:herd:noexecute"
)

// Outcome is what the health rules did, or would have done, in a window.
type Outcome struct {
	// NotReady is, per node, each time its Ready went Unknown.
	NotReady map[string][]time.Time
	// Evicted is, per pod ("namespace/name"), when a NoExecute taint
	// evicted it, and from which node.
	Evicted map[string]Eviction
}

// Eviction is one pod evicted by a NoExecute taint.
type Eviction struct {
	Node string
	At   time.Time
}

// Report is a replay's findings.
type Report struct {
	// Since and Until bound the window; From and To are its first and
	// last positions, Events how many it held.
	Since, Until time.Time
	From, To     int64
	Events       int
	// Actual is what the log records; WhatIf what the settings would
	// have done.
	Actual, WhatIf Outcome
	// Nodes and Pods are those whose outcome differs, by name.
	Nodes []NodeDifference
	Pods  []PodDifference
	// SameNodes and SamePods count those whose outcome is the same.
	SameNodes, SamePods int
	// Downtimes are the stretches of the window in which herd's health
	// rules did not run (herd was down): the replay runs no rule then,
	// and gives every node a full grace period from each start, as herd
	// did. They are inputs, not differences.
	Downtimes []Downtime
}

// NodeDifference is a node that went NotReady at other times, or not.
type NodeDifference struct {
	Node           string
	Actual, WhatIf []time.Time
}

// PodDifference is a pod evicted at another time, or not.
type PodDifference struct {
	Pod            string
	Actual, WhatIf *Eviction
}

// ThinnedError is a window that reaches back before the retention policy
// thinned the heartbeats: the replay needs every one.
type ThinnedError struct {
	Since, Before time.Time
}

func (e *ThinnedError) Error() string {
	return fmt.Sprintf("the window from %s reaches back before %s, before which the retention policy has thinned the heartbeats; a what-if needs every heartbeat of its window: start it after %s, or keep heartbeats longer (--heartbeat-retention)",
		e.Since.Format(time.RFC3339), e.Before.Format(time.RFC3339), e.Before.Format(time.RFC3339))
}

// Log is what the replay reads: the log, its snapshots and its views,
// never written.
type Log = events.Log

// Run replays the log's events recorded at or after since under cfg.
func Run(ctx context.Context, log Log, since time.Time, cfg health.Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	if c := log.Compaction(); c.Deleted > 0 && since.Before(c.Before) {
		return Report{}, &ThinnedError{Since: since, Before: c.Before}
	}
	start, err := log.Query(ctx, events.Filter{Until: since, Limit: 1, Newest: true})
	if err != nil {
		return Report{}, err
	}
	var from int64
	if len(start) == 1 {
		from = start[0].Position
	}
	ss, err := starts(ctx, log, from)
	if err != nil {
		return Report{}, err
	}
	dts, err := downtimes(ctx, log, ss, from)
	if err != nil {
		return Report{}, err
	}
	s := &sim{log: log, cfg: cfg, at: from, starts: ss, downtimes: dts, nodes: map[string]*domain.Node{}, pods: map[string]*domain.Pod{},
		heard: map[string]time.Time{}, onNode: map[string]map[string]bool{}, podNode: map[string]string{}, skipped: map[string]bool{},
		reported: map[string]map[domain.ConditionType]domain.NodeConditionChanged{},
		whatIf:   Outcome{NotReady: map[string][]time.Time{}, Evicted: map[string]Eviction{}},
		actual:   Outcome{NotReady: map[string][]time.Time{}, Evicted: map[string]Eviction{}}}
	if err := s.load(ctx); err != nil {
		return Report{}, err
	}
	rep := Report{Since: since, From: from + 1, Downtimes: dts}
	s.next = since
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for b := range readAhead(ctx, log, from) {
		if b.err != nil {
			return Report{}, b.err
		}
		for _, rec := range b.recs {
			s.advance(rec.RecordedAt)
			if err := s.take(ctx, rec); err != nil {
				return Report{}, err
			}
			s.at = rec.Position
			rep.Events++
			rep.Until = rec.RecordedAt
		}
	}
	s.advance(rep.Until)
	rep.To = s.at
	rep.Actual, rep.WhatIf = s.actual, s.whatIf
	rep.compare(cfg.MonitorPeriod + time.Second)
	return rep, nil
}

// readBatch is how many events the replay reads at once.
const readBatch = 5000

// batch is one read of the log, or the error that ended the reading.
type batch struct {
	recs []events.Record
	err  error
}

// readAhead reads the log after position from in batches on a goroutine
// of its own, a few batches ahead of the replay, so that reading and
// decoding the log and replaying it use a core each.
func readAhead(ctx context.Context, log Log, from int64) <-chan batch {
	out := make(chan batch, 4)
	go func() {
		defer close(out)
		lean, _ := log.(events.LeanReader)
		for {
			var (
				recs []events.Record
				err  error
			)
			if lean != nil {
				// A plain heartbeat counts by its time alone.
				recs, err = lean.ReadAfterLean(ctx, from, readBatch, heartbeatType)
			} else {
				recs, err = log.ReadAfter(ctx, from, readBatch)
			}
			select {
			case out <- batch{recs: recs, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil || len(recs) < readBatch {
				return
			}
			from = recs[len(recs)-1].Position
		}
	}()
	return out
}

// sim is the replay's state: every node and pod as the window has them,
// when each node was last heard from, which pods run where.
type sim struct {
	log   Log
	cfg   health.Config
	at    int64 // the position replayed up to
	nodes map[string]*domain.Node
	pods  map[string]*domain.Pod
	heard map[string]time.Time // lease renewals, by node
	// onNode is, per node, the pods bound to it; podNode the node each
	// pod is on.
	onNode  map[string]map[string]bool
	podNode map[string]string
	// names are the nodes' names, sorted, for the monitor's passes;
	// disrupted is the fleet disruption rule's verdict at the last pass,
	// as node reconciles read the recorded fleet health.
	names     []string
	disrupted bool
	// skipped are the ids of the reactions left out, and of what they
	// caused.
	skipped map[string]bool
	// reported is, per node, each condition as the node itself last
	// reported it: what a report brings back once the replay has marked
	// the node Unknown where herd had not.
	reported map[string]map[domain.ConditionType]domain.NodeConditionChanged
	// starts are the health rules' starts that bear on the window, and
	// downtimes the stretches before them when the rules did not run.
	starts    []start
	downtimes []Downtime
	// next is the monitor's next tick.
	next           time.Time
	actual, whatIf Outcome
}

// load folds every node and pod the views know (tombstones included) as
// it stood at the window's start; pods deleted since are loaded when the
// window first names them.
func (s *sim) load(ctx context.Context) error {
	nodes, _, err := projections.NewNodeView(s.log).Rows(ctx, "", 0)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if err := s.loadNode(ctx, n.Name); err != nil {
			return err
		}
	}
	pods, _, err := projections.NewPodView(s.log).Rows(ctx, "", 0)
	if err != nil {
		return err
	}
	for _, p := range pods {
		if _, err := s.pod(ctx, domain.PodStream(p.Namespace, p.Name)); err != nil {
			return err
		}
	}
	return nil
}

func (s *sim) loadNode(ctx context.Context, name string) error {
	n, err := foldAt(ctx, s.log, domain.NodeStream(name), s.at, projections.FoldNode)
	if err != nil {
		return err
	}
	if _, known := s.nodes[name]; !known {
		i, _ := slices.BinarySearch(s.names, name)
		s.names = slices.Insert(s.names, i, name)
	}
	s.nodes[name] = &n
	s.reported[name] = map[domain.ConditionType]domain.NodeConditionChanged{}
	for _, c := range n.Conditions {
		if c.Status != domain.ConditionUnknown {
			s.reported[name][c.Type] = domain.NodeConditionChanged{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
		}
	}
	lease := domain.LeaseAggregate.Stream(domain.NodeLeaseNamespace + "/" + name)
	renewed, err := s.log.Query(ctx, events.Filter{Stream: lease, Before: s.at + 1, Limit: 1, Newest: true})
	if err != nil {
		return err
	}
	if len(renewed) == 1 {
		s.heard[name] = renewed[0].RecordedAt
	}
	return nil
}

// pod is the pod of stream, loaded as of the window's start the first
// time it is asked for.
func (s *sim) pod(ctx context.Context, stream string) (*domain.Pod, error) {
	if p, ok := s.pods[stream]; ok {
		return p, nil
	}
	p, err := foldAt(ctx, s.log, stream, s.at, projections.FoldPod)
	if err != nil {
		return nil, err
	}
	s.pods[stream] = &p
	s.place(stream, p)
	return &p, nil
}

// place keeps onNode in step with where pod p runs.
func (s *sim) place(stream string, p domain.Pod) {
	if was, ok := s.podNode[stream]; ok {
		delete(s.onNode[was], stream)
		delete(s.podNode, stream)
	}
	if p.Exists() && p.Spec.NodeName != "" {
		s.podNode[stream] = p.Spec.NodeName
		if s.onNode[p.Spec.NodeName] == nil {
			s.onNode[p.Spec.NodeName] = map[string]bool{}
		}
		s.onNode[p.Spec.NodeName][stream] = true
	}
}

// foldAt folds stream up to position at, from its newest snapshot.
func foldAt[S any](ctx context.Context, log Log, stream string, at int64, fold func(S, events.Record) (S, error)) (S, error) {
	var s S
	if at == 0 {
		return s, nil
	}
	snap, recs, err := log.ReadFromSnapshot(ctx, stream, at)
	if err != nil {
		return s, err
	}
	if snap != nil {
		if err := decodeSnapshot(snap.State, &s); err != nil {
			// Fold from the first event instead.
			if recs, err = log.ReadStreamRange(ctx, stream, 0, at); err != nil {
				return s, err
			}
		}
	}
	for _, rec := range recs {
		if s, err = fold(s, rec); err != nil {
			return s, err
		}
	}
	return s, nil
}

// take replays one event: a reaction of the rules replayed (or a
// consequence of one) is recorded as what happened and left out; any
// other is folded in, and the health rules react to it as they would.
func (s *sim) take(ctx context.Context, rec events.Record) error {
	md := rec.Metadata
	if md.Actor == healthActor || md.Actor == noExecuteActor || (md.CausationID != "" && s.skipped[md.CausationID]) {
		s.skipped[rec.ID] = true
		return s.recordActual(rec)
	}
	a, ok := domain.AggregateOf(rec.Stream)
	if !ok {
		return nil
	}
	key, _ := a.Key(rec.Stream)
	switch a {
	case domain.NodeAggregate:
		n, ok := s.nodes[key]
		if !ok {
			if err := s.loadNode(ctx, key); err != nil {
				return err
			}
			n = s.nodes[key]
		}
		if rec.Type == heartbeatType && n.Exists() {
			// Of a plain heartbeat the health rules read only when it
			// came (as herd's deadlines take it, by its recorded time):
			// the bulk of a day's log, not decoded.
			if rec.RecordedAt.After(n.LastHeartbeat) {
				n.LastHeartbeat = rec.RecordedAt
			}
		} else {
			next, err := projections.FoldNode(*n, rec)
			if err != nil {
				return err
			}
			*n = next
		}
		if err := s.reports(key, rec); err != nil {
			return err
		}
		// The health rules' reconcile of a node that changed: its
		// condition taints follow its conditions.
		s.decide(key, domain.SyncConditionTaints{WithholdNoExecute: s.disrupted}, rec.RecordedAt)
		s.evict(rec.RecordedAt, key)
	case domain.PodAggregate:
		p, err := s.pod(ctx, rec.Stream)
		if err != nil {
			return err
		}
		next, err := projections.FoldPod(*p, rec)
		if err != nil {
			return err
		}
		*p = next
		s.place(rec.Stream, next)
	case domain.LeaseAggregate:
		ns, name, _ := strings.Cut(key, "/")
		if node, ok := domain.NodeLeaseHolder(ns, name); ok && !reconcilers.Is[domain.LeaseDeleted](rec) {
			s.heard[node] = rec.RecordedAt
		}
	}
	return nil
}

// reports keeps what node name reports of its conditions and, when its
// report reaches a node the replay holds Unknown, brings them back as
// the report would have: herd's heartbeat decides the node's conditions
// from what it reports (domain.RecordHeartbeat).
func (s *sim) reports(name string, rec events.Record) error {
	switch rec.Type {
	case domain.NodeConditionChanged{}.EventType():
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			return err
		}
		if ch := ev.(domain.NodeConditionChanged); ch.Status != domain.ConditionUnknown {
			s.reported[name][ch.Type] = ch
		}
	case domain.HeartbeatRecorded{}.EventType():
		n := s.nodes[name]
		if ready, _ := n.Condition(domain.ConditionReady); ready.Status != domain.ConditionUnknown {
			return nil
		}
		if _, ok := s.reported[name][domain.ConditionReady]; !ok {
			// Nothing reported yet: decide the report again, as an
			// agent's metrics say.
			ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
			if err != nil {
				return err
			}
			hb := ev.(domain.HeartbeatRecorded)
			evs, err := domain.DecideNode(*n, domain.RecordHeartbeat{Metrics: hb.Metrics, Kubelet: hb.Kubelet}, rec.RecordedAt)
			if err != nil {
				return nil
			}
			for _, ev := range evs {
				if _, beat := ev.(domain.HeartbeatRecorded); !beat {
					*n = domain.EvolveNode(*n, ev)
				}
			}
			return nil
		}
		for _, t := range sortedKeys(s.reported[name]) {
			want := s.reported[name][t]
			cur, _ := n.Condition(want.Type)
			if cur.Status == want.Status && cur.Reason == want.Reason {
				continue
			}
			*n = domain.EvolveNode(*n, domain.NodeConditionChanged{Type: want.Type, From: cur.Status, Status: want.Status,
				Reason: want.Reason, Message: want.Message, At: rec.RecordedAt})
		}
		if ready, _ := n.Condition(domain.ConditionReady); ready.Status == domain.ConditionTrue {
			*n = domain.EvolveNode(*n, domain.NodeBecameReady{At: rec.RecordedAt})
		}
	}
	return nil
}

// readyUnknown says a condition change is Ready going Unknown.
func readyUnknown(ch domain.NodeConditionChanged) bool {
	return ch.Type == domain.ConditionReady && ch.Status == domain.ConditionUnknown
}

// recordActual notes a reaction the log records: a node's Ready going
// Unknown, a pod's eviction.
func (s *sim) recordActual(rec events.Record) error {
	switch rec.Type {
	case domain.NodeConditionChanged{}.EventType(), domain.HeartbeatMissed{}.EventType():
		// Ready turned Unknown alone, or with the rest of a mark in one
		// HeartbeatMissed.
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			return err
		}
		if domain.Holds(ev, readyUnknown) {
			name, _ := domain.NodeAggregate.Key(rec.Stream)
			s.actual.NotReady[name] = append(s.actual.NotReady[name], rec.RecordedAt)
		}
	case domain.PodDeletionRequested{}.EventType():
		if rec.Metadata.Actor != noExecuteActor {
			return nil
		}
		key, _ := domain.PodAggregate.Key(rec.Stream)
		node := ""
		if p, ok := s.pods[rec.Stream]; ok {
			node = p.Spec.NodeName
		}
		s.actual.Evicted[key] = Eviction{Node: node, At: rec.RecordedAt}
	}
	return nil
}

// advance runs the monitor's ticks up to now, but none while herd's
// health rules were not running.
func (s *sim) advance(now time.Time) {
	for !s.next.After(now) {
		if !down(s.downtimes, s.next) {
			s.tick(s.next)
		}
		s.next = s.next.Add(s.cfg.MonitorPeriod)
	}
}

// tick is one monitor pass at now: the silent nodes are marked, and the
// pods due for eviction evicted.
func (s *sim) tick(now time.Time) {
	a := s.assess()
	disrupted := a.IsDisrupted()
	s.disrupted = disrupted
	note := ""
	if disrupted {
		note = a.Note()
	}
	since := watchingSince(s.starts, now)
	for _, name := range s.names {
		n := s.nodes[name]
		last := domain.LastHeard(*n, s.heard[name])
		ready, _ := n.Condition(domain.ConditionReady)
		if n.ExpectedToReport() && ready.Status != domain.ConditionUnknown &&
			domain.SilentSince(last, n.RegisteredAt, since, now, s.cfg.GracePeriod, s.cfg.StartupGracePeriod) {
			s.decide(name, domain.NodeSequence{
				domain.MarkNodeUnreachable{Note: note, LastHeard: s.heard[name], WithholdNoExecute: disrupted},
				domain.SyncConditionTaints{WithholdNoExecute: disrupted},
			}, now)
		}
		s.evict(now, name)
	}
}

// decide applies a health command to node name, noting a Ready that goes
// Unknown.
func (s *sim) decide(name string, cmd domain.NodeCommand, now time.Time) {
	n := s.nodes[name]
	evs, err := domain.DecideNode(*n, cmd, now)
	if err != nil {
		return // a node the rules would leave alone (deleted, stopped)
	}
	for _, ev := range evs {
		if domain.Holds(ev, readyUnknown) {
			s.whatIf.NotReady[name] = append(s.whatIf.NotReady[name], now)
		}
		*n = domain.EvolveNode(*n, ev)
	}
}

// evict evicts the pods on node name whose NoExecute deadline has come.
func (s *sim) evict(now time.Time, name string) {
	n := s.nodes[name]
	if n == nil || !n.HasNoExecute() {
		return
	}
	for _, stream := range sortedKeys(s.onNode[name]) {
		p := s.pods[stream]
		if p.Terminating() {
			continue
		}
		at, evict := domain.NoExecuteDeadline(n.Taints, p.Spec.Tolerations, p.BoundAt())
		if !evict || now.Before(at) {
			continue
		}
		s.whatIf.Evicted[p.Key()] = Eviction{Node: name, At: at}
		p.Deletion = &domain.PodDeletion{RequestedAt: at}
	}
}

// assess counts the fleet for the disruption rule.
func (s *sim) assess() domain.AssessFleet {
	var a domain.AssessFleet
	for _, n := range s.nodes {
		if !n.ExpectedToReport() {
			continue
		}
		a.Total++
		if ready, _ := n.Condition(domain.ConditionReady); ready.Status == domain.ConditionUnknown {
			a.Unreachable++
		}
	}
	return a
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compare lists the nodes and pods whose outcomes differ, times within
// tolerance counting as the same.
func (r *Report) compare(tolerance time.Duration) {
	near := func(a, b time.Time) bool { d := a.Sub(b); return d <= tolerance && d >= -tolerance }
	names := map[string]bool{}
	for n := range r.Actual.NotReady {
		names[n] = true
	}
	for n := range r.WhatIf.NotReady {
		names[n] = true
	}
	for _, n := range sortedKeys(names) {
		a, w := r.Actual.NotReady[n], r.WhatIf.NotReady[n]
		same := len(a) == len(w)
		for i := 0; same && i < len(a); i++ {
			same = near(a[i], w[i])
		}
		if same {
			r.SameNodes++
			continue
		}
		r.Nodes = append(r.Nodes, NodeDifference{Node: n, Actual: a, WhatIf: w})
	}
	pods := map[string]bool{}
	for p := range r.Actual.Evicted {
		pods[p] = true
	}
	for p := range r.WhatIf.Evicted {
		pods[p] = true
	}
	for _, p := range sortedKeys(pods) {
		a, aok := r.Actual.Evicted[p]
		w, wok := r.WhatIf.Evicted[p]
		if aok && wok && near(a.At, w.At) {
			r.SamePods++
			continue
		}
		d := PodDifference{Pod: p}
		if aok {
			d.Actual = &a
		}
		if wok {
			d.WhatIf = &w
		}
		r.Pods = append(r.Pods, d)
	}
}

// decodeSnapshot reads a snapshot's state, as the watch hub encoded it.
func decodeSnapshot(data []byte, v any) error {
	if len(data) == 0 {
		return errors.New("an empty snapshot")
	}
	return gojson.Unmarshal(data, v)
}

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
	"herd/reconcilers"
)

// herdActor is the prefix of the actors herd's own reconcilers write as.
const herdActor = "system:herd:"

// observers are the parts of herd that write as herd but only record what
// they observed outside it (a kubelet's status, a probe's answer, a
// kubelet target's configuration): their events are inputs.
var observers = []string{"system:herd:kubelet", "system:herd:config", "system:herd:kubeletprobe"}

// decided says whether herd decided rec itself, rather than being told it
// from outside: a reconciler's write, or herd's own start (system:herd).
func decided(rec events.Record) bool {
	a := rec.Metadata.Actor
	if a == "system:herd" {
		return true
	}
	return strings.HasPrefix(a, herdActor) && !slices.Contains(observers, a)
}

// input is what one command from outside appended: one stream's events
// at one time, or a command the what-if adds.
type input struct {
	at     time.Time
	stream string
	md     events.Metadata
	recs   []events.Record
	// cmd, when set, is a node command the what-if adds.
	cmd  domain.NodeCommand
	node string
	// budget, when set, is a budget's change the what-if adds, the
	// budgetIndex-th of the question's.
	budget      *BudgetChange
	budgetIndex int
	// eviction, when set, is the Eviction API's eviction a client asked
	// for, recs as herd decided it: the what-if asks it again of the
	// pod's budget as the what-if has it (clientEviction). refusal, on
	// a client's ask after a refusal, is the refusal's index in
	// simulation.refused, plus one.
	eviction *domain.Eviction
	refusal  int
}

// clientEviction is the eviction a client asked of the Eviction API
// (kubectl drain) that appended run, a pod's events, if it is one: the
// pod marked a disruption target by the Eviction API and deleted with a
// grace period.
func clientEviction(run []events.Record) (*domain.Eviction, bool) {
	var target *domain.PodDisruptionTargeted
	var del *domain.PodDeletionRequested
	for _, r := range run {
		ev, err := decodeEvent(r)
		if err != nil {
			return nil, false
		}
		switch e := ev.(type) {
		case domain.PodDisruptionTargeted:
			if e.Reason == domain.ReasonEvictionByEvictionAPI {
				target = &e
			}
		case domain.PodDeletionRequested:
			del = &e
		}
	}
	if target == nil || del == nil {
		return nil, false
	}
	grace := del.GracePeriodSeconds
	return &domain.Eviction{Command: domain.PodSequence{
		domain.TargetPodDisruption{Reason: target.Reason, Message: target.Message},
		domain.DeletePod{GracePeriodSeconds: &grace},
	}}, true
}

// granted says whether run is a budget's grant of an eviction a client
// asked for: the what-if's own eviction decides the grant again.
func granted(run []events.Record) bool {
	for _, r := range run {
		if r.Type != (domain.PodDisruptionGranted{}).EventType() {
			return false
		}
	}
	return true
}

// plan turns the window's events into the inputs to feed: every event
// herd did not decide, in order, grouped by the command that appended it,
// less those of the nodes that fail in the what-if, plus its drains.
func (s *simulation) plan(window []events.Record) []input {
	var out []input
	s.realPods, s.realOrder = map[string]string{}, map[string][]string{}
	for _, r := range window {
		if r.Type != (domain.PodCreated{}).EventType() || !decided(r) {
			continue
		}
		if key, ok := domain.PodAggregate.Key(r.Stream); ok {
			if owner := generatedOwner(key); owner != "" {
				s.realPods[key] = owner
				s.realOrder[owner] = append(s.realOrder[owner], key)
			}
		}
	}
	for i := 0; i < len(window); {
		j := i + 1
		for j < len(window) && sameCommand(window[i], window[j]) {
			j++
		}
		run := window[i:j]
		i = j
		if decided(run[0]) || s.silenced(run[0]) || granted(run) {
			continue
		}
		in := input{at: run[0].RecordedAt, stream: run[0].Stream, md: run[0].Metadata, recs: run}
		if _, pod := domain.PodAggregate.Key(in.stream); pod {
			in.eviction, _ = clientEviction(run)
		}
		out = append(out, in)
	}
	for _, d := range s.cfg.Drains {
		out = append(out, input{at: d.At, stream: domain.NodeStream(d.Node), node: d.Node, cmd: domain.DrainNode{},
			md: events.Metadata{Actor: WhatIfActor, Source: "what-if"}})
	}
	for i, b := range s.cfg.Budgets {
		out = append(out, input{at: b.At, stream: domain.PodDisruptionBudgetStream(b.Namespace, b.Name),
			budget: &s.cfg.Budgets[i], budgetIndex: i, md: events.Metadata{Actor: WhatIfActor, Source: "what-if"}})
	}
	slices.SortStableFunc(out, func(a, b input) int { return a.at.Compare(b.at) })
	return out
}

// changeBudget makes the budget's spec what b says, on the budget as the
// what-if has it at b's time.
func (s *simulation) changeBudget(ctx context.Context, b BudgetChange) error {
	cur, err := s.budgets.Get(ctx, b.Namespace, b.Name)
	if errors.Is(err, domain.ErrNotFound) {
		err := fmt.Errorf("what-if: budget %s/%s: no such PodDisruptionBudget at %s", b.Namespace, b.Name, b.At.UTC().Format(time.RFC3339))
		if at, ok := s.createdLater(domain.PodDisruptionBudgetStream(b.Namespace, b.Name), b.At); ok {
			err = fmt.Errorf("%w; it was created at %s: change it then or later", err, at.UTC().Format(time.RFC3339Nano))
		}
		return err
	}
	if err != nil {
		return err
	}
	spec := cur.Spec
	spec.MinAvailable, spec.MaxUnavailable = b.MinAvailable, b.MaxUnavailable
	if _, err := s.writer.PodDisruptionBudgetCommands().Execute(ctx, cur.Key(), domain.UpdatePodDisruptionBudget{Meta: cur.ObjectMeta, Spec: spec}); err != nil {
		return fmt.Errorf("what-if: budget %s at %s: %w", b, b.At.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// createdLater is when the window's log first speaks of stream after t:
// an object asked about before it existed.
func (s *simulation) createdLater(stream string, t time.Time) (time.Time, bool) {
	for _, r := range s.window {
		if r.Stream == stream && r.RecordedAt.After(t) {
			return r.RecordedAt, true
		}
	}
	return time.Time{}, false
}

// silenced says whether rec came from a node that has failed in the
// what-if by its time: its reports, its lease's renewals, its agent's
// word on its pods.
func (s *simulation) silenced(rec events.Record) bool {
	for _, f := range s.cfg.Failed {
		if rec.RecordedAt.Before(f.At) {
			continue
		}
		if rec.Stream == domain.NodeStream(f.Node) || rec.Stream == domain.LeaseStream(domain.NodeLeaseNamespace, f.Node) ||
			rec.Metadata.Actor == "system:node:"+f.Node {
			return true
		}
	}
	return false
}

// feed appends one input to the what-if's log at the clock's time, as
// the real log recorded it, or decides it again where the simulated node
// no longer stands where the real one did (see heartbeat).
func (s *simulation) feed(ctx context.Context, in input) error {
	ctx = events.WithMetadata(ctx, in.md)
	if len(in.recs) > 0 {
		s.followUntil(in.recs[0].Position)
	}
	if in.budget != nil {
		if err := s.changeBudget(ctx, *in.budget); err != nil {
			return &InputError{Field: "budgets", Index: in.budgetIndex, Err: err}
		}
		return nil
	}
	if in.cmd != nil {
		if _, err := s.writer.NodeCommands().Execute(ctx, domain.Key{Name: in.node}, in.cmd); err != nil {
			return fmt.Errorf("what-if: %T on node %s at %s: %w", in.cmd, in.node, in.at.UTC().Format(time.RFC3339), err)
		}
		return nil
	}
	evs := make([]domain.Event, 0, len(in.recs))
	for _, r := range in.recs {
		ev, err := decodeEvent(r)
		if err != nil {
			return fmt.Errorf("what-if: event %d: %w", r.Position, err)
		}
		evs = append(evs, ev)
	}
	stream, ok, err := s.podStream(ctx, in.stream)
	if err != nil {
		return err
	}
	if !ok {
		s.orphans++
		return nil
	}
	in.stream = stream
	if in.eviction != nil {
		return s.evict(ctx, in)
	}
	if name, ok := domain.NodeAggregate.Key(in.stream); ok {
		handled, err := s.heartbeat(ctx, name, evs)
		if handled || err != nil {
			return err
		}
	}
	if err := s.writer.AppendRecorded(ctx, in.stream, evs); err != nil {
		return fmt.Errorf("what-if: feed %s at %s: %w", in.stream, in.at.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// evict asks the eviction a client asked for again, of the pod's budget
// as the what-if has it: granted, it evicts the pod as herd did; refused,
// the pod stays, the answer lists the refusal, and the client asks again
// after the what-if's EvictionRetry (as kubectl drain does after a 429),
// until the budget grants it, the pod is gone, or the window ends. The
// real log holds only the ask herd granted: a client's earlier asks,
// refused, left nothing in it.
func (s *simulation) evict(ctx context.Context, in input) error {
	key, _ := domain.PodAggregate.Key(in.stream)
	ns, name, _ := strings.Cut(key, "/")
	if in.refusal > 0 {
		// Asked again of a pod already on its way out (another
		// eviction, a deletion): it went otherwise.
		p, err := s.pods.Get(ctx, ns, name)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return err
		}
		if err == nil && p.Terminating() {
			s.askedAgain(in, false)
			return nil
		}
	}
	_, err := s.writer.Evictions().Execute(ctx, domain.Key{Namespace: ns, Name: name}, *in.eviction)
	var refused *domain.EvictionRefusedError
	switch {
	case errors.As(err, &refused):
		if in.refusal == 0 {
			realKey, _ := domain.PodAggregate.Key(in.recs[0].Stream)
			if owner := generatedOwner(realKey); owner != "" {
				realKey = owner
			}
			s.refused = append(s.refused, RefusedEviction{Pod: realKey, At: in.at, Actor: in.md.Actor, Budget: ns + "/" + refused.Budget, Cause: refused.Cause})
			in.refusal = len(s.refused)
		}
		s.refused[in.refusal-1].Asks++
		if every := s.cfg.evictionRetry(); every > 0 {
			if next := s.clock.Now().Add(every); !next.After(s.until) {
				in.at = next
				s.retries = append(s.retries, in) // due after every ask queued before it: in time order
			}
		}
		return nil
	case errors.Is(err, domain.ErrNotFound):
		// The pod is gone in the what-if by then: an input about a pod
		// it never made, or, asked again, a pod that went otherwise.
		if in.refusal == 0 {
			s.orphans++
			return nil
		}
		s.askedAgain(in, false)
		return nil
	case err != nil:
		return fmt.Errorf("what-if: the eviction of pod %s at %s: %w", key, s.clock.Now().UTC().Format(time.RFC3339), err)
	}
	if in.refusal > 0 {
		s.askedAgain(in, true)
	}
	return nil
}

// askedAgain records the last of a client's asks again, in: granted, or
// finding the pod gone otherwise; the client asks no more.
func (s *simulation) askedAgain(in input, granted bool) {
	r := &s.refused[in.refusal-1]
	r.Asks++
	at := s.clock.Now()
	if granted {
		r.GrantedAt = &at
	} else {
		r.GoneAt = &at
	}
}

// heartbeat decides a node's report again when the what-if's node is not
// Ready as the real one was when the report came (one marked earlier, or
// not at all): a report is a heartbeat to herd, which decides the node's
// conditions from it (domain.RecordHeartbeat), and the events the real
// herd decided from it would not be the what-if's. A report to a node
// that stands as the real one did is taken as it was recorded.
func (s *simulation) heartbeat(ctx context.Context, name string, evs []domain.Event) (bool, error) {
	var beat *domain.HeartbeatRecorded
	for _, ev := range evs {
		if hb, ok := ev.(domain.HeartbeatRecorded); ok {
			beat = &hb
		}
	}
	if beat == nil {
		return false, nil
	}
	n, err := s.nodes.Get(ctx, name)
	if err != nil {
		return false, nil // a node the what-if does not hold: as recorded
	}
	ready, _ := n.Condition(domain.ConditionReady)
	if ready.Status == s.ready.status[name] {
		return false, nil
	}
	cmd := domain.RecordHeartbeat{Metrics: beat.Metrics, Kubelet: beat.Kubelet, Thresholds: s.cfg.Serve.Thresholds}
	if beat.Metrics == nil {
		cmd.Reported = s.ready.reported(name)
	}
	if _, err := s.writer.NodeCommands().Execute(ctx, domain.Key{Name: name}, cmd); err != nil {
		return true, fmt.Errorf("what-if: node %s's report at %s: %w", name, s.clock.Now().UTC().Format(time.RFC3339), err)
	}
	return true, nil
}

// podStream is the what-if's stream for what the real log wrote to
// stream: the same, but for a pod a workload's reconciler created in the
// window, whose name has a random suffix. What a node reported of such a
// pod goes to its counterpart in the simulation: the pod the same
// owner's reconciler created in the same turn (the k-th of the window in
// each run). false when the simulation made no such pod: the report is
// of a pod that would not have been.
func (s *simulation) podStream(ctx context.Context, stream string) (string, bool, error) {
	key, ok := domain.PodAggregate.Key(stream)
	if !ok {
		return stream, true, nil
	}
	owner, generated := s.realPods[key]
	if !generated {
		return stream, true, nil
	}
	k := slices.Index(s.realOrder[owner], key)
	ns, _, _ := strings.Cut(key, "/")
	base := strings.TrimSuffix(strings.TrimPrefix(owner, ns+"/"), "*")
	created, err := s.log.Query(ctx, events.Filter{StreamPrefix: domain.PodAggregate.Stream(ns + "/" + base), Types: []string{domain.PodCreated{}.EventType()}, After: s.seedHead})
	if err != nil {
		return "", false, err
	}
	var sim []string
	for _, r := range created {
		if decided(r) {
			if simKey, ok := domain.PodAggregate.Key(r.Stream); ok && generatedOwner(simKey) == owner {
				sim = append(sim, r.Stream)
			}
		}
	}
	if k < 0 || k >= len(sim) {
		return "", false, nil
	}
	return sim[k], true, nil
}

// generatedOwner is a generated pod's key with its random suffix as "*".
func generatedOwner(key string) string {
	if len(key) > reconcilers.SuffixLength+1 && key[len(key)-reconcilers.SuffixLength-1] == '-' {
		return key[:len(key)-reconcilers.SuffixLength] + "*"
	}
	return ""
}

// decodeEvent decodes rec's event with goccy/go-json, which decodes as
// encoding/json does in a fraction of the time: a what-if decodes every
// input it feeds and every decision it compares.
func decodeEvent(rec events.Record) (domain.Event, error) {
	return domain.UnmarshalEventWith(rec.Type, rec.Payload, gojson.Unmarshal)
}

// conditionChanges are the records that may change a node's conditions:
// NodeConditionChanged, and the composites that hold one
// (HeartbeatMissed, NodeStatusChanged).
var conditionChanges = reconcilers.EventTypesOf(domain.NodeConditionChanged{})

// followUntil follows the real log's node events before position p.
func (s *simulation) followUntil(p int64) {
	for ; s.cursor < len(s.window) && s.window[s.cursor].Position < p; s.cursor++ {
		rec := s.window[s.cursor]
		name, ok := domain.NodeAggregate.Key(rec.Stream)
		if !ok || !conditionChanges.Match(rec) {
			continue
		}
		if ev, err := decodeEvent(rec); err == nil {
			s.ready.follow(name, []domain.Event{ev})
		}
	}
}

// readiness follows the nodes as the real log has them: each node's
// Ready, and the conditions it last reported itself.
type readiness struct {
	status map[string]domain.ConditionStatus
	conds  map[string]map[domain.ConditionType]domain.ReportedCondition
}

// load takes every node as the what-if's log starts: as the real one
// stood then.
func (r *readiness) load(ctx context.Context, nodes interface {
	List(context.Context) ([]domain.Node, int64, error)
}) error {
	r.status = map[string]domain.ConditionStatus{}
	r.conds = map[string]map[domain.ConditionType]domain.ReportedCondition{}
	ns, _, err := nodes.List(ctx)
	if err != nil {
		return err
	}
	for _, n := range ns {
		ready, _ := n.Condition(domain.ConditionReady)
		r.status[n.Name] = ready.Status
		for _, c := range n.Conditions {
			if c.Status != domain.ConditionUnknown {
				r.remember(n.Name, domain.ReportedCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
			}
		}
	}
	return nil
}

func (r *readiness) remember(node string, c domain.ReportedCondition) {
	if r.conds[node] == nil {
		r.conds[node] = map[domain.ConditionType]domain.ReportedCondition{}
	}
	r.conds[node][c.Type] = c
}

// follow takes one command's events on node name in the real log.
func (r *readiness) follow(name string, evs []domain.Event) {
	for _, ev := range evs {
		domain.Holds(ev, func(c domain.NodeConditionChanged) bool {
			if c.Type == domain.ConditionReady {
				r.status[name] = c.Status
			}
			if c.Status != domain.ConditionUnknown {
				r.remember(name, domain.ReportedCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
			}
			return false
		})
	}
}

// reported are the conditions node name last reported, in a stable
// order.
func (r *readiness) reported(name string) []domain.ReportedCondition {
	var out []domain.ReportedCondition
	for _, c := range r.conds[name] {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b domain.ReportedCondition) int { return strings.Compare(string(a.Type), string(b.Type)) })
	return out
}

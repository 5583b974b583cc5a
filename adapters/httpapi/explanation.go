package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"herd/domain"
	"herd/events"
)

// NodeExplanation says why a node is not as it should be: for each thing
// that is wrong, the event that made it so and the chain of events that
// caused that one, each as herd recorded it (causation ids), newest
// first.
type NodeExplanation struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Node       string `json:"node"`
	// AsOf is the resourceVersion the explanation is as of, when not now.
	AsOf  int64         `json:"asOf,omitempty"`
	Items []Explanation `json:"items"`
}

// Explanation is one thing wrong with a node and its causes.
type Explanation struct {
	// What is wrong, in words: "Ready is Unknown", "tainted
	// node.kubernetes.io/unreachable:NoExecute", "cordoned".
	What string `json:"what"`
	// Since is when it became so.
	Since time.Time `json:"since"`
	// Chain is the event that made it so, then the event that caused it,
	// and so on, as far as the log records causes.
	Chain []ExplainedEvent `json:"chain"`
}

// ExplainedEvent is one link of a chain.
type ExplainedEvent struct {
	Position   int64     `json:"position"`
	Stream     string    `json:"stream"`
	Type       string    `json:"type"`
	RecordedAt time.Time `json:"recordedAt"`
	Actor      string    `json:"actor,omitempty"`
	Source     string    `json:"source,omitempty"`
	// Says is what the event says, in words, where herd has them.
	Says string `json:"says,omitempty"`
}

// maxCauses bounds a chain, against a cycle a corrupt log could hold.
const maxCauses = 16

// nodeExplanation serves GET .../nodes/NAME/explanation, of the node now
// or, with ?asOf= (as on lists), as it was then.
func (s *Server) nodeExplanation(w http.ResponseWriter, r *http.Request) {
	r, done, ok := s.expensiveRead(w, r, "Node")
	if !ok {
		return
	}
	defer done()
	name := r.PathValue("name")
	var n domain.Node
	at, err := s.explanationAt(r)
	if err == nil {
		if at == 0 {
			n, err = s.NodeView.Get(r.Context(), name)
		} else {
			n, err = stateAt[domain.Node](r.Context(), s, "nodes", domain.NodeStream(name), at)
		}
	}
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	var upTo int64 // the node's version then, or now: no bound
	if at > 0 {
		upTo = n.Version
	}
	out, err := s.explainNode(r.Context(), n, upTo)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	out.AsOf = at
	s.writeJSON(w, http.StatusOK, out)
}

// explanationAt is the position ?asOf= names, or 0 for now. A moment
// before the log's first event is one when nothing existed.
func (s *Server) explanationAt(r *http.Request) (int64, error) {
	asOf := r.URL.Query().Get("asOf")
	if asOf == "" {
		return 0, nil
	}
	pos, err := s.positionAsOf(r.Context(), asOf)
	if err == nil && pos == 0 {
		err = domain.ErrNotFound
	}
	return pos, err
}

// stateAt is the object of resource in stream as it was at pos, as the
// watch hub folds it: domain.ErrNotFound when it did not exist then.
func stateAt[S any](ctx context.Context, s *Server, resource, stream string, pos int64) (S, error) {
	var zero S
	if s.Watch == nil {
		return zero, errors.New("this herd keeps no watch hub to fold the past with")
	}
	o, err := s.Watch.StateAt(ctx, resource, stream, pos)
	if err != nil {
		return zero, err
	}
	if o == nil || !o.Exists {
		return zero, fmt.Errorf("%w then (resourceVersion %d)", domain.ErrNotFound, pos)
	}
	return o.State().(S), nil
}

// trouble is one thing wrong with a node or a pod, and how to find the
// event that made it so in its stream: one of types that made says did.
type trouble struct {
	what  string
	types []string
	made  func(domain.Event) bool
}

// madeByA is a trouble made so by an event of type E that is says holds
// (any, when is is nil).
func madeByA[E domain.Event](what string, is func(E) bool) trouble {
	var e E
	// An event may be found in a composite that stands for it (a
	// HeartbeatMissed for the conditions and taints it changed).
	return trouble{what: what, types: domain.TypesHolding(e.EventType()), made: func(ev domain.Event) bool {
		return domain.Holds(ev, is)
	}}
}

// troubles are what is wrong with n: each condition not in its healthy
// status (domain.HealthyStatus; Ready or ServicesHealthy not True, a
// pressure True or Unknown), each taint, a cordon, a drain, an
// agent herd has lost.
func troubles(n domain.Node) []trouble {
	var out []trouble
	if _, ok := n.Condition(domain.ConditionReady); !ok {
		out = append(out, madeByA[domain.NodeRegistered]("Ready is Unknown: the node has never reported its status", nil))
	}
	for _, c := range n.Conditions {
		// Anything but a condition's healthy status is trouble, Unknown
		// included: ServicesHealthy Unknown (herd cannot ask the agent's
		// services) as much as MemoryPressure True.
		if !domain.SignalsTrouble(c.Type, c.Status) {
			continue
		}
		what := fmt.Sprintf("%s is %s", c.Type, c.Status)
		if c.Type == domain.ConditionReady && !n.LastHeartbeat.IsZero() {
			what += fmt.Sprintf(": its last heartbeat was at %s", n.LastHeartbeat.UTC().Format(time.RFC3339))
		}
		out = append(out, madeByA(what, func(ch domain.NodeConditionChanged) bool { return ch.Type == c.Type && ch.Status == c.Status }))
	}
	for _, t := range n.Taints {
		out = append(out, madeByA(fmt.Sprintf("tainted %s:%s", t.Key, t.Effect), func(tt domain.NodeTainted) bool {
			return tt.Taint.Key == t.Key && tt.Taint.Effect == t.Effect
		}))
	}
	if n.Unschedulable {
		out = append(out, madeByA[domain.NodeCordoned]("cordoned", nil))
	}
	switch n.AgentState {
	case domain.AgentDraining, domain.AgentDrained:
		out = append(out, madeByA[domain.NodeDrainStarted]("agent "+string(n.AgentState), nil))
	case domain.AgentLost:
		out = append(out, madeByA("agent Lost", func(ch domain.NodeConditionChanged) bool {
			return ch.Type == domain.ConditionReady && ch.Status == domain.ConditionUnknown
		}))
	}
	return out
}

// explainNode finds, for each trouble of n, the newest event of n's
// stream (up to its version upTo, when not 0) that made it so, and
// follows its causes through the log.
func (s *Server) explainNode(ctx context.Context, n domain.Node, upTo int64) (NodeExplanation, error) {
	items, err := s.explain(ctx, domain.NodeStream(n.Name), troubles(n), upTo)
	return NodeExplanation{APIVersion: herdGroup + "/" + herdVersion, Kind: "NodeExplanation", Node: n.Name, Items: items}, err
}

// explain finds, for each of ts, the newest event of stream (up to the
// stream's version upTo, when not 0) that made it so, and follows its
// causes through the log. It reads the stream newest first, only the
// event types that can make a trouble so, a page at a time: a node's
// year of heartbeats is never read.
func (s *Server) explain(ctx context.Context, stream string, ts []trouble, upTo int64) ([]Explanation, error) {
	items := []Explanation{}
	for _, t := range ts {
		rec, found, err := s.madeBy(ctx, stream, t, upTo)
		if err != nil {
			return items, err
		}
		if !found {
			continue
		}
		chain, err := s.causes(ctx, rec)
		if err != nil {
			return items, err
		}
		items = append(items, Explanation{What: t.what, Since: rec.RecordedAt, Chain: chain})
	}
	return items, nil
}

// madeBy is the newest event of stream, up to its version upTo (the
// object's version at the moment explained; 0 for now), that t.made
// says made the trouble so.
func (s *Server) madeBy(ctx context.Context, stream string, t trouble, upTo int64) (events.Record, bool, error) {
	return events.NewestMatching(ctx, s.Log, events.Filter{Stream: stream, Types: t.types, UpToVersion: upTo}, func(rec events.Record) bool {
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		return err == nil && t.made(ev)
	})
}

// PodExplanation says why a pod is not as it should be, as
// NodeExplanation does for a node, and, wrong or not, how it came to be:
// why it was made and why it runs where it does.
type PodExplanation struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Namespace  string        `json:"namespace"`
	Pod        string        `json:"pod"`
	AsOf       int64         `json:"asOf,omitempty"`
	Items      []Explanation `json:"items"`
	// Origin is the pod's creation ("created") and its binding to its
	// node ("bound to NODE"), each with the chain of what caused it: a
	// controller's pod names the change that made its controller want
	// one more (its spec, a lost pod, a count of finished ones).
	Origin []Explanation `json:"origin,omitempty"`
}

// podExplanation serves GET .../namespaces/NS/pods/NAME/explanation.
func (s *Server) podExplanation(w http.ResponseWriter, r *http.Request) {
	r, done, ok := s.expensiveRead(w, r, "Pod")
	if !ok {
		return
	}
	defer done()
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	var p domain.Pod
	at, err := s.explanationAt(r)
	if err == nil {
		if at == 0 {
			p, err = s.PodView.Get(r.Context(), ns, name)
		} else {
			p, err = stateAt[domain.Pod](r.Context(), s, "pods", domain.PodStream(ns, name), at)
		}
	}
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	var upTo int64
	if at > 0 {
		upTo = p.Version
	}
	items, err := s.explain(r.Context(), domain.PodStream(ns, name), podTroubles(p), upTo)
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	origin, err := s.explain(r.Context(), domain.PodStream(ns, name), podOrigin(p), upTo)
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	s.writeJSON(w, http.StatusOK, PodExplanation{APIVersion: herdGroup + "/" + herdVersion, Kind: "PodExplanation", Namespace: ns, Pod: name, AsOf: at,
		Items: items, Origin: origin})
}

// podOrigin is how p came to be: its creation, and its binding to the
// node it is on (none for a pod made bound, whose creation says it).
func podOrigin(p domain.Pod) []trouble {
	out := []trouble{madeByA[domain.PodCreated]("created", nil)}
	if node := p.Spec.NodeName; node != "" {
		out = append(out, madeByA("bound to "+node, func(b domain.PodScheduled) bool { return b.NodeName == node }))
	}
	return out
}

// podTroubles are what is wrong with p: being deleted (an eviction names
// its cause) and held back by finalizers, waiting for a node, failed, not
// ready.
func podTroubles(p domain.Pod) []trouble {
	var out []trouble
	if p.Terminating() {
		out = append(out, madeByA[domain.PodDeletionRequested]("being deleted", nil),
			madeByA[domain.PodDisruptionTargeted]("targeted for disruption", nil))
		if len(p.Finalizers) > 0 {
			out = append(out, heldBy(p.Finalizers))
		}
	}
	if p.Spec.NodeName == "" && !p.Terminating() {
		out = append(out, madeByA[domain.PodUnschedulable]("not scheduled", nil))
	}
	if p.Status.Phase == domain.PodFailed {
		out = append(out, madeByA("Failed", func(st domain.PodStatusUpdated) bool { return st.Status.Phase == domain.PodFailed }))
	}
	if c, ok := p.Condition(domain.PodConditionReady); ok && c.Status != domain.ConditionTrue && !p.Finished() {
		out = append(out, notReady)
	}
	return out
}

// heldBy is a pod being deleted that finalizers hold: nothing finalizes
// it until whoever put each there (a Job's reconciler until it has
// counted the pod; an operator's controller) takes it off. It was made so
// by the last event that set them: the pod's creation, or a change of its
// metadata.
func heldBy(finalizers []string) trouble {
	return trouble{what: "held by finalizers " + strings.Join(finalizers, ", "),
		types: []string{domain.PodCreated{}.EventType(), domain.PodMetadataChanged{}.EventType()},
		made: func(ev domain.Event) bool {
			switch e := ev.(type) {
			case domain.PodCreated:
				return slices.Equal(e.Finalizers, finalizers)
			case domain.PodMetadataChanged:
				return slices.Equal(e.Finalizers, finalizers)
			}
			return false
		}}
}

// notReady is a running pod's Ready not True: made so by herd when its
// node was not Ready, or by its runtime's report.
var notReady = trouble{what: "not ready",
	types: []string{domain.PodMarkedNotReady{}.EventType(), domain.PodStatusUpdated{}.EventType(), domain.PodObserved{}.EventType()},
	made: func(ev domain.Event) bool {
		var st domain.PodStatus
		switch e := ev.(type) {
		case domain.PodMarkedNotReady:
			return true
		case domain.PodStatusUpdated:
			st = e.Status
		case domain.PodObserved:
			st = e.Status
		}
		c, ok := (domain.Pod{Status: st}).Condition(domain.PodConditionReady)
		return ok && c.Status != domain.ConditionTrue
	}}

// causes is rec and the events that caused it, one by one, as their
// causation ids say.
func (s *Server) causes(ctx context.Context, rec events.Record) ([]ExplainedEvent, error) {
	var chain []ExplainedEvent
	for range maxCauses {
		chain = append(chain, explained(rec))
		if rec.Metadata.CausationID == "" {
			break
		}
		found, err := s.Log.Query(ctx, events.Filter{ID: rec.Metadata.CausationID, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			break // the cause was a request, or thinned away
		}
		rec = found[0]
	}
	return chain, nil
}

func explained(rec events.Record) ExplainedEvent {
	e := ExplainedEvent{Position: rec.Position, Stream: rec.Stream, Type: rec.Type, RecordedAt: rec.RecordedAt,
		Actor: rec.Metadata.Actor, Source: rec.Metadata.Source}
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return e
	}
	switch ev := ev.(type) {
	case domain.NodeConditionChanged:
		e.Says = fmt.Sprintf("%s %s → %s: %s", ev.Type, dashIfEmpty(string(ev.From)), ev.Status, ev.Message)
	case domain.NodeStatusChanged:
		says := make([]string, 0, len(ev.Conditions)+1)
		for _, c := range ev.Conditions {
			says = append(says, fmt.Sprintf("%s %s → %s: %s", c.Type, dashIfEmpty(string(c.From)), c.Status, c.Message))
		}
		switch {
		case ev.BecameReady:
			says = append(says, "node Ready")
		case ev.NotReady != "":
			says = append(says, "node not Ready")
		}
		e.Says = strings.Join(says, "; ")
	case domain.NodeTainted:
		e.Says = fmt.Sprintf("%s:%s (%s)", ev.Taint.Key, ev.Taint.Effect, ev.Cause)
	case domain.HeartbeatMissed:
		e.Says = fmt.Sprintf("no heartbeat since %s", ev.LastHeartbeat.Format(time.RFC3339))
		if len(ev.Conditions) > 0 {
			types := make([]string, len(ev.Conditions))
			for i, c := range ev.Conditions {
				types[i] = string(c.Type)
			}
			e.Says += fmt.Sprintf("; %s → Unknown: %s", strings.Join(types, ", "), ev.Message)
		}
		for _, t := range ev.Taints {
			e.Says += fmt.Sprintf("; tainted %s:%s", t.Key, t.Effect)
		}
	case domain.PodDisruptionTargeted:
		e.Says = fmt.Sprintf("%s: %s", ev.Reason, ev.Message)
	case domain.PodUnschedulable:
		e.Says = ev.Message
	case domain.PodDeletionRequested:
		e.Says = fmt.Sprintf("grace period %ds", ev.GracePeriodSeconds)
	case domain.PodCreated:
		if o, ok := (domain.Pod{Owners: ev.Owners}).Controller(); ok {
			e.Says = fmt.Sprintf("controlled by %s %s", o.Kind, o.Name)
		}
	case domain.PodScheduled:
		e.Says = "to " + ev.NodeName
	case domain.PodMarkedNotReady:
		e.Says = "its node " + ev.Node + " is not Ready"
	case domain.JobPodsCounted:
		var counted []string
		if n := len(ev.Succeeded); n > 0 {
			counted = append(counted, fmt.Sprintf("%d succeeded", n))
		}
		if n := len(ev.Failed); n > 0 {
			counted = append(counted, fmt.Sprintf("%d failed", n))
		}
		if n := len(ev.Forgotten); n > 0 {
			counted = append(counted, fmt.Sprintf("%d gone", n))
		}
		e.Says = "counted " + strings.Join(counted, ", ")
	}
	return e
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

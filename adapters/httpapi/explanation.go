package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"herd/domain"
	"herd/events"
)

// NodeExplanation says why a node is not as it should be: for each thing
// that is wrong, the event that made it so and the chain of events that
// caused that one, each as herd recorded it (causation ids), newest
// first.
type NodeExplanation struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Node       string        `json:"node"`
	Items      []Explanation `json:"items"`
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

// nodeExplanation serves GET .../nodes/NAME/explanation.
func (s *Server) nodeExplanation(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	n, err := s.NodeView.Get(r.Context(), name)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	out, err := s.explainNode(r.Context(), n)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeJSON(w, http.StatusOK, out)
}

// trouble is one thing wrong with a node, and how to find the event that
// made it so in the node's stream.
type trouble struct {
	what string
	made func(domain.Event) bool
}

// troubles are what is wrong with n: a Ready condition not True, a
// pressure or other condition True, each taint, a cordon, a drain, an
// agent herd has lost.
func troubles(n domain.Node) []trouble {
	var out []trouble
	if _, ok := n.Condition(domain.ConditionReady); !ok {
		out = append(out, trouble{what: "Ready is Unknown: the node has never reported its status", made: func(e domain.Event) bool {
			_, ok := e.(domain.NodeRegistered)
			return ok
		}})
	}
	for _, c := range n.Conditions {
		bad := c.Status == domain.ConditionTrue
		if c.Type == domain.ConditionReady {
			bad = c.Status != domain.ConditionTrue
		}
		if !bad {
			continue
		}
		c := c
		what := fmt.Sprintf("%s is %s", c.Type, c.Status)
		if c.Type == domain.ConditionReady && !n.LastHeartbeat.IsZero() {
			what += fmt.Sprintf(": its last heartbeat was at %s", n.LastHeartbeat.UTC().Format(time.RFC3339))
		}
		out = append(out, trouble{what: what, made: func(e domain.Event) bool {
			ch, ok := e.(domain.NodeConditionChanged)
			return ok && ch.Type == c.Type && ch.Status == c.Status
		}})
	}
	for _, t := range n.Taints {
		t := t
		out = append(out, trouble{what: fmt.Sprintf("tainted %s:%s", t.Key, t.Effect), made: func(e domain.Event) bool {
			tt, ok := e.(domain.NodeTainted)
			return ok && tt.Taint.Key == t.Key && tt.Taint.Effect == t.Effect
		}})
	}
	if n.Unschedulable {
		out = append(out, trouble{what: "cordoned", made: func(e domain.Event) bool { _, ok := e.(domain.NodeCordoned); return ok }})
	}
	switch n.AgentState {
	case domain.AgentDraining, domain.AgentDrained:
		out = append(out, trouble{what: "agent " + string(n.AgentState), made: func(e domain.Event) bool { _, ok := e.(domain.NodeDrainStarted); return ok }})
	case domain.AgentLost:
		out = append(out, trouble{what: "agent Lost", made: func(e domain.Event) bool {
			ch, ok := e.(domain.NodeConditionChanged)
			return ok && ch.Type == domain.ConditionReady && ch.Status == domain.ConditionUnknown
		}})
	}
	return out
}

// explainNode finds, for each trouble of n, the newest event of n's
// stream that made it so, and follows its causes through the log.
func (s *Server) explainNode(ctx context.Context, n domain.Node) (NodeExplanation, error) {
	items, err := s.explain(ctx, domain.NodeStream(n.Name), troubles(n))
	return NodeExplanation{APIVersion: herdGroup + "/" + herdVersion, Kind: "NodeExplanation", Node: n.Name, Items: items}, err
}

// explain finds, for each of ts, the newest event of stream that made it
// so, and follows its causes through the log.
func (s *Server) explain(ctx context.Context, stream string, ts []trouble) ([]Explanation, error) {
	items := []Explanation{}
	if len(ts) == 0 {
		return items, nil
	}
	recs, err := s.Log.ReadStream(ctx, stream, 0)
	if err != nil {
		return items, err
	}
	for _, t := range ts {
		for i := len(recs) - 1; i >= 0; i-- {
			ev, err := domain.UnmarshalEvent(recs[i].Type, recs[i].Payload)
			if err != nil || !t.made(ev) {
				continue
			}
			chain, err := s.causes(ctx, recs[i])
			if err != nil {
				return items, err
			}
			items = append(items, Explanation{What: t.what, Since: recs[i].RecordedAt, Chain: chain})
			break
		}
	}
	return items, nil
}

// PodExplanation says why a pod is not as it should be, as
// NodeExplanation does for a node.
type PodExplanation struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Namespace  string        `json:"namespace"`
	Pod        string        `json:"pod"`
	Items      []Explanation `json:"items"`
}

// podExplanation serves GET .../namespaces/NS/pods/NAME/explanation.
func (s *Server) podExplanation(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	p, err := s.PodView.Get(r.Context(), ns, name)
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	items, err := s.explain(r.Context(), domain.PodStream(ns, name), podTroubles(p))
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	s.writeJSON(w, http.StatusOK, PodExplanation{APIVersion: herdGroup + "/" + herdVersion, Kind: "PodExplanation", Namespace: ns, Pod: name, Items: items})
}

// podTroubles are what is wrong with p: being deleted (an eviction names
// its cause), waiting for a node, failed.
func podTroubles(p domain.Pod) []trouble {
	var out []trouble
	if p.Terminating() {
		out = append(out, trouble{what: "being deleted", made: func(e domain.Event) bool {
			_, ok := e.(domain.PodDeletionRequested)
			return ok
		}})
		out = append(out, trouble{what: "targeted for disruption", made: func(e domain.Event) bool {
			_, ok := e.(domain.PodDisruptionTargeted)
			return ok
		}})
	}
	if p.Spec.NodeName == "" && !p.Terminating() {
		out = append(out, trouble{what: "not scheduled", made: func(e domain.Event) bool {
			_, ok := e.(domain.PodUnschedulable)
			return ok
		}})
	}
	if p.Status.Phase == domain.PodFailed {
		out = append(out, trouble{what: "Failed", made: func(e domain.Event) bool {
			st, ok := e.(domain.PodStatusUpdated)
			return ok && st.Status.Phase == domain.PodFailed
		}})
	}
	return out
}

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
	case domain.NodeTainted:
		e.Says = fmt.Sprintf("%s:%s (%s)", ev.Taint.Key, ev.Taint.Effect, ev.Cause)
	case domain.HeartbeatMissed:
		e.Says = fmt.Sprintf("no heartbeat since %s", ev.LastHeartbeat.Format(time.RFC3339))
	case domain.PodDisruptionTargeted:
		e.Says = fmt.Sprintf("%s: %s", ev.Reason, ev.Message)
	case domain.PodUnschedulable:
		e.Says = ev.Message
	case domain.PodDeletionRequested:
		e.Says = fmt.Sprintf("grace period %ds", ev.GracePeriodSeconds)
	}
	return e
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

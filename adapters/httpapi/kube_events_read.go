package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// derivedEvent is one Kubernetes Event as herd derives it from its log:
// never stored, named and versioned by the log position it comes from.
type derivedEvent struct {
	// pos is the log position of the record behind the event; seq tells
	// apart the events of one record (a Killing per container).
	pos int64
	seq int
	at  time.Time
	// namespace is the event's own: its pod's, or "default" for a node's,
	// as Kubernetes puts them.
	namespace string
	object    corev1.ObjectReference
	reason    string
	typ       string
	message   string
	component string
	// host is the node the event happened on, when there is one.
	host string
}

// name is the event's name: its object's name, a dot and the log
// position in hex, as Kubernetes' event names look; a second event of the
// same record adds "-" and its index.
func (d derivedEvent) name() string {
	n := d.object.Name + "." + strconv.FormatInt(d.pos, 16)
	if d.seq > 0 {
		n += "-" + strconv.Itoa(d.seq)
	}
	return n
}

// key orders events: by log position, then by index.
func (d derivedEvent) after(pos int64, seq int) bool {
	return d.pos > pos || d.pos == pos && d.seq > seq
}

// parseEventName splits an event's name into its object's name, log
// position and index; ok is false for a name herd never gives.
func parseEventName(name string) (object string, pos int64, seq int, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return "", 0, 0, false
	}
	object, rest := name[:i], name[i+1:]
	if hex, idx, found := strings.Cut(rest, "-"); found {
		n, err := strconv.Atoi(idx)
		if err != nil || n <= 0 || strconv.Itoa(n) != idx {
			return "", 0, 0, false
		}
		rest, seq = hex, n
	}
	p, err := strconv.ParseInt(rest, 16, 64)
	if err != nil || p <= 0 || strconv.FormatInt(p, 16) != rest {
		return "", 0, 0, false
	}
	return object, p, seq, true
}

// core is the event as a core/v1 Event.
func (d derivedEvent) core() corev1.Event {
	at := metav1.NewTime(d.at)
	return corev1.Event{
		TypeMeta: metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: d.name(), Namespace: d.namespace,
			UID:               eventUID(d),
			ResourceVersion:   strconv.FormatInt(d.pos, 10),
			CreationTimestamp: at,
		},
		InvolvedObject:      d.object,
		Reason:              d.reason,
		Message:             d.message,
		Source:              corev1.EventSource{Component: d.component, Host: d.host},
		FirstTimestamp:      at,
		LastTimestamp:       at,
		EventTime:           metav1.NewMicroTime(d.at),
		Count:               1,
		Type:                d.typ,
		Action:              d.reason,
		ReportingController: d.component,
		ReportingInstance:   reportingInstance(d),
	}
}

// v1 is the event as an events.k8s.io/v1 Event.
func (d derivedEvent) v1() eventsv1.Event {
	c := d.core()
	return eventsv1.Event{
		TypeMeta:                 metav1.TypeMeta{Kind: "Event", APIVersion: eventsv1.SchemeGroupVersion.String()},
		ObjectMeta:               c.ObjectMeta,
		EventTime:                c.EventTime,
		ReportingController:      c.ReportingController,
		ReportingInstance:        c.ReportingInstance,
		Action:                   c.Action,
		Reason:                   c.Reason,
		Regarding:                c.InvolvedObject,
		Note:                     c.Message,
		Type:                     c.Type,
		DeprecatedSource:         c.Source,
		DeprecatedFirstTimestamp: c.FirstTimestamp,
		DeprecatedLastTimestamp:  c.LastTimestamp,
		DeprecatedCount:          c.Count,
	}
}

// eventUID is a stable uid for the event, in a uuid's shape, from its
// place in the log: its index, then its log position.
func eventUID(d derivedEvent) types.UID {
	return types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", d.seq, d.pos))
}

// reportingInstance is who reported the event: the component, on the
// node when it acted there.
func reportingInstance(d derivedEvent) string {
	if d.host != "" {
		return d.component + "-" + d.host
	}
	return d.component
}

// eventScope narrows what an event reader reads, from the request's path
// and field selector, so that kubectl describe reads one pod's stream
// rather than every pod's.
type eventScope struct {
	// workloads are the Events the workload controllers write about
	// Deployments, ReplicaSets, DaemonSets and Jobs, which come from
	// their pods' streams and their own.
	nodes, pods, workloads bool
	// node is the one node whose events are read, "" for every node's.
	node string
	// podStream is the one pod stream read, when only one pod's events
	// are; namespace the one namespace whose streams are read otherwise,
	// "" for every namespace's.
	podStream, namespace string
}

// eventReader reads the log's events in order: each next returns the
// events of a further stretch of the log. It keeps the pods, ReplicaSets
// and Jobs it has seen folded up to where it has read, since an object's
// events depend on what it was before, and lets an object go once it is
// gone from the fleet: a pod finalized, a ReplicaSet deleted, a Job
// deleted and on no CronJob's active list. So a watch that runs for days
// holds the fleet's objects, not every object it ever saw.
type eventReader struct {
	s     *Server
	scope eventScope
	pos   int64
	pods  map[string]domain.Pod
	rss   map[string]domain.ReplicaSet
	jobs  map[string]domain.Job
	// cronJobs are the CronJobs seen, for the UIDs of their Events;
	// cronJobDeleted the uids of the Jobs the CronJob reconciler deleted
	// itself (none of them went missing).
	cronJobs       map[string]domain.CronJob
	cronJobDeleted map[string]bool
	// nodeUIDs caches the uids of nodes' events, for the nodes not
	// deleted since (nodeUID).
	nodeUIDs map[string]string
}

func (s *Server) newEventReader(scope eventScope) *eventReader {
	return &eventReader{s: s, scope: scope, pods: map[string]domain.Pod{}, rss: map[string]domain.ReplicaSet{},
		jobs: map[string]domain.Job{}, cronJobs: map[string]domain.CronJob{}, cronJobDeleted: map[string]bool{}, nodeUIDs: map[string]string{}}
}

// eventBatch is how many pod records an event reader reads at once: a
// list that has found its page stops reading there. A variable so that
// tests can make batches end between a record's events and a node's.
var eventBatch = 1000

// next returns the events of the log in (r.pos, upTo], oldest first, and
// moves r to upTo.
func (r *eventReader) next(ctx context.Context, upTo int64) ([]derivedEvent, error) {
	var out []derivedEvent
	for r.pos < upTo {
		evs, err := r.batch(ctx, upTo)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}

// batch returns the events of the next stretch of the log up to upTo,
// oldest first, and moves r to its end: up to eventBatch records of each
// aggregate read.
func (r *eventReader) batch(ctx context.Context, upTo int64) ([]derivedEvent, error) {
	if upTo <= r.pos {
		return nil, nil
	}
	out, end, err := r.objectEvents(ctx, upTo)
	if err != nil {
		return nil, err
	}
	if r.scope.nodes {
		evs, err := r.nodeEvents(ctx, end)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	slices.SortStableFunc(out, func(a, b derivedEvent) int {
		if a.pos != b.pos {
			return int(min(max(a.pos-b.pos, -1), 1))
		}
		return a.seq - b.seq
	})
	r.pos = end
	return out, nil
}

func (r *eventReader) nodeEvents(ctx context.Context, upTo int64) ([]derivedEvent, error) {
	var (
		entries []projections.TimelineEntry
		err     error
	)
	if r.scope.node != "" {
		entries, err = r.s.Timeline.Node(ctx, r.scope.node, r.pos, 0)
	} else {
		entries, err = r.s.Timeline.Between(ctx, r.pos, upTo)
	}
	if err != nil {
		return nil, err
	}
	out := make([]derivedEvent, 0, len(entries))
	// One record may stand for several entries (a HeartbeatMissed and
	// what it changed): each after the first gets its index.
	seq, last := 0, int64(-1)
	for _, e := range entries {
		if e.Position > upTo {
			break
		}
		if e.Position == last {
			seq++
		} else {
			seq, last = 0, e.Position
		}
		uid, ok := r.nodeUIDs[e.Node]
		if !ok {
			var err error
			if uid, err = r.nodeUID(ctx, e); err != nil {
				return nil, err
			}
			r.nodeUIDs[e.Node] = uid
		}
		typ := corev1.EventTypeNormal
		if e.Type == projections.TimelineWarning {
			typ = corev1.EventTypeWarning
		}
		out = append(out, derivedEvent{
			pos: e.Position, seq: seq, at: e.At, namespace: metav1.NamespaceDefault,
			object:    corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: e.Node, UID: types.UID(uid)},
			reason:    e.Kind,
			typ:       typ,
			message:   e.Message,
			component: componentHerd,
			host:      e.Node,
		})
		if e.Kind == projections.TimelineDeleted {
			// A node registered again under the name is another node,
			// with a uid of its own; and a long watch does not hold
			// every name it ever saw.
			delete(r.nodeUIDs, e.Node)
		}
	}
	return out, nil
}

// nodeUID is the uid of the node an entry of its timeline is about: the
// node registered under that name when the entry was made. The node's
// view holds its newest registration; an entry made before that one (a
// list that starts before a node was deleted and registered again) takes
// the uid of the registration in force at the entry, read from the log,
// as does an entry of a node deleted since (its tombstone keeps no uid).
// A node herd never saw has none.
func (r *eventReader) nodeUID(ctx context.Context, e projections.TimelineEntry) (string, error) {
	n, err := r.s.NodeView.GetIncludingDeleted(ctx, e.Node)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	case !n.Deleted && !n.StartedAt.After(e.At):
		return n.UID, nil
	}
	recs, err := r.s.Log.Query(ctx, events.Filter{Stream: domain.NodeStream(e.Node), Types: []string{"NodeRegistered"},
		Before: e.Position + 1, Limit: 1, Newest: true})
	if err != nil || len(recs) == 0 {
		return "", err
	}
	var reg struct {
		UID string `json:"uid"`
	}
	if err := json.Unmarshal(recs[0].Payload, &reg); err != nil {
		return "", fmt.Errorf("node %s registered at %d: %w", e.Node, recs[0].Position, err)
	}
	return reg.UID, nil
}

// objectFilters are the log's streams the scope reads besides nodes':
// pods' for their own events and their workloads', ReplicaSets' and
// Jobs' for the workloads'.
func (r *eventReader) objectFilters() []events.Filter {
	var out []events.Filter
	prefix := func(a *domain.Aggregate) string {
		if r.scope.namespace == "" {
			return a.Prefix()
		}
		return a.Prefix() + r.scope.namespace + "/"
	}
	switch {
	case r.scope.podStream != "" && !r.scope.workloads:
		out = append(out, events.Filter{Stream: r.scope.podStream})
	case r.scope.pods || r.scope.workloads:
		out = append(out, events.Filter{StreamPrefix: prefix(domain.PodAggregate)})
	}
	if r.scope.workloads {
		out = append(out, events.Filter{StreamPrefix: prefix(domain.ReplicaSetAggregate)}, events.Filter{StreamPrefix: prefix(domain.JobAggregate)},
			events.Filter{StreamPrefix: prefix(domain.CronJobAggregate)})
	}
	return out
}

// objectEvents returns the events of up to eventBatch records of each
// of the scope's streams after r.pos and up to upTo, and the log
// position they reach: upTo, or the last record read of an aggregate
// that has more.
func (r *eventReader) objectEvents(ctx context.Context, upTo int64) ([]derivedEvent, int64, error) {
	end := upTo
	var recs []events.Record
	for _, f := range r.objectFilters() {
		f.After, f.Limit = r.pos, eventBatch
		got, err := r.s.Log.Query(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		if n := len(got); n == eventBatch && got[n-1].Position < end {
			end = got[n-1].Position
		}
		recs = append(recs, got...)
	}
	slices.SortFunc(recs, func(a, b events.Record) int { return int(min(max(a.Position-b.Position, -1), 1)) })
	var out []derivedEvent
	for _, rec := range recs {
		if rec.Position > end {
			break
		}
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		if err != nil {
			return nil, 0, fmt.Errorf("event %d of %s: %w", rec.Position, rec.Stream, err)
		}
		var evs []derivedEvent
		switch {
		case domain.PodAggregate.Owns(rec.Stream):
			evs, err = r.podRecord(rec, ev)
		case domain.ReplicaSetAggregate.Owns(rec.Stream):
			evs, err = r.replicaSetRecord(rec, ev)
		case domain.JobAggregate.Owns(rec.Stream):
			evs, err = r.jobRecord(rec, ev)
		case domain.CronJobAggregate.Owns(rec.Stream):
			evs, err = r.cronJobRecord(rec, ev)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("event %d of %s: %w", rec.Position, rec.Stream, err)
		}
		out = append(out, evs...)
	}
	return out, end, nil
}

// streamKey is the namespace and name of a namespaced object's stream.
func streamKey(a *domain.Aggregate, stream string) (ns, name string) {
	key, _ := a.Key(stream)
	ns, name, _ = strings.Cut(key, "/")
	return ns, name
}

// podRecord folds one record of a pod's stream and returns the events it
// stands for: the pod's own, and its controller's (a pod created or
// deleted by its ReplicaSet, DaemonSet or Job).
func (r *eventReader) podRecord(rec events.Record, ev domain.Event) ([]derivedEvent, error) {
	prev := r.pods[rec.Stream]
	cur, err := projections.FoldPod(prev, rec)
	if err != nil {
		return nil, err
	}
	r.pods[rec.Stream] = cur
	if cur.Finalized {
		// A pod of the same name later starts its stream afresh.
		delete(r.pods, rec.Stream)
	}
	ns, name := streamKey(domain.PodAggregate, rec.Stream)
	if cur.Namespace == "" {
		cur.Namespace, cur.Name = ns, name
	}
	var out []derivedEvent
	if r.scope.pods {
		for _, pe := range podEvents(prev, cur, ev) {
			out = append(out, derivedEvent{
				pos: rec.Position, seq: len(out), at: rec.RecordedAt, namespace: ns,
				object: corev1.ObjectReference{
					Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: name, UID: types.UID(cur.UID),
					ResourceVersion: strconv.FormatInt(rec.Position, 10), FieldPath: pe.fieldPath,
				},
				reason: pe.reason, typ: pe.typ, message: pe.message, component: pe.component,
				host: podHost(pe, cur),
			})
		}
	}
	if r.scope.workloads {
		for _, we := range podWorkloadEvents(prev, cur, ev, rec.Metadata.Source) {
			out = append(out, we.derived(rec, len(out), ns))
		}
	}
	return out, nil
}

// replicaSetRecord folds one record of a ReplicaSet's stream and returns
// the events its Deployment's controller writes of it.
func (r *eventReader) replicaSetRecord(rec events.Record, ev domain.Event) ([]derivedEvent, error) {
	prev := r.rss[rec.Stream]
	cur, err := projections.FoldReplicaSet(prev, rec)
	if err != nil {
		return nil, err
	}
	r.rss[rec.Stream] = cur
	if cur.Deleted {
		delete(r.rss, rec.Stream)
	}
	ns, _ := streamKey(domain.ReplicaSetAggregate, rec.Stream)
	var out []derivedEvent
	for _, we := range replicaSetWorkloadEvents(prev, cur, ev, rec.Metadata.Source) {
		out = append(out, we.derived(rec, len(out), ns))
	}
	return out, nil
}

// jobRecord folds one record of a Job's stream and returns the events
// the Job controller writes of it.
func (r *eventReader) jobRecord(rec events.Record, ev domain.Event) ([]derivedEvent, error) {
	prev := r.jobs[rec.Stream]
	cur, err := projections.FoldJob(prev, rec)
	if err != nil {
		return nil, err
	}
	r.jobs[rec.Stream] = cur
	if rec.Metadata.Source == cronJobController.source {
		switch ev.(type) {
		case domain.JobDeletionRequested, domain.JobDeleted:
			r.cronJobDeleted[cur.UID] = true
		}
	}
	ns, _ := streamKey(domain.JobAggregate, rec.Stream)
	var out []derivedEvent
	owned := cur
	if cur.Deleted {
		owned.Owners = prev.Owners // a Job gone keeps no owners; its deletion is still its CronJob's
	}
	for _, we := range append(jobWorkloadEvents(prev, cur), cronJobJobEvents(owned, ev, rec.Metadata.Source)...) {
		out = append(out, we.derived(rec, len(out), ns))
	}
	if cur.Deleted && !r.activeInACronJob(cur) {
		r.forgetJob(rec.Stream, cur.UID)
	}
	return out, nil
}

// activeInACronJob says whether a CronJob the reader has seen lists the
// Job among its active runs: its Events still need the Job when it takes
// it off.
func (r *eventReader) activeInACronJob(j domain.Job) bool {
	for _, cj := range r.cronJobs {
		if cj.Namespace == j.Namespace && slices.ContainsFunc(cj.Status.Active, func(a domain.CronJobActiveJob) bool { return a.UID == j.UID }) {
			return true
		}
	}
	return false
}

// forgetJob lets a Job gone from the fleet go, with what the reader
// noted of its uid.
func (r *eventReader) forgetJob(stream, uid string) {
	if j, ok := r.jobs[stream]; ok && j.UID == uid {
		delete(r.jobs, stream)
	}
	delete(r.cronJobDeleted, uid)
}

// podHost is the node a pod's event happened on: the runtime's events
// happen on the pod's node; the scheduler's and the controllers' in herd.
func podHost(pe podEvent, p domain.Pod) string {
	if pe.component == componentRuntime {
		return p.Spec.NodeName
	}
	return ""
}

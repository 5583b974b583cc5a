package httpapi

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"herd/domain"
	"herd/projections/watch"
)

// eventFieldLabels are what field selectors may name on core/v1 Events,
// as kube-apiserver allows them.
var eventFieldLabels = []string{
	"involvedObject.apiVersion", "involvedObject.fieldPath", "involvedObject.kind", "involvedObject.name",
	"involvedObject.namespace", "involvedObject.resourceVersion", "involvedObject.uid",
	"metadata.name", "metadata.namespace", "reason", "reportingComponent", "source", "type",
}

// eventsV1FieldLabels are events.k8s.io/v1's field labels, each with the
// core/v1 label it stands for, as kube-apiserver converts them.
var eventsV1FieldLabels = map[string]string{
	"regarding.apiVersion": "involvedObject.apiVersion", "regarding.fieldPath": "involvedObject.fieldPath",
	"regarding.kind": "involvedObject.kind", "regarding.name": "involvedObject.name",
	"regarding.namespace": "involvedObject.namespace", "regarding.resourceVersion": "involvedObject.resourceVersion",
	"regarding.uid": "involvedObject.uid", "reportingController": "reportingComponent",
	"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace", "reason": "reason", "type": "type",
}

// coreEvents and eventsV1 are Events in the core group and in
// events.k8s.io/v1: served from the log by the handlers here, not through
// the watch hub, since every event is its own object and never changes.
var (
	coreEvents = &apiResource{
		name: "events", kind: "Event", apiVersion: "v1", namespaced: true, fieldLabels: eventFieldLabels,
		newObject: func() runtime.Object { return &corev1.Event{} },
		newList:   func() runtime.Object { return &corev1.EventList{} },
	}
	eventsV1 = &apiResource{
		name: "events", kind: "Event", apiVersion: eventsv1.SchemeGroupVersion.String(), namespaced: true,
		fieldLabels: slices.Sorted(maps.Keys(eventsV1FieldLabels)),
		newObject:   func() runtime.Object { return &eventsv1.Event{} },
		newList:     func() runtime.Object { return &eventsv1.EventList{} },
	}
)

// listKubeEvents serves core/v1 Events: a list, or a watch with
// ?watch=true.
func (s *Server) listKubeEvents(w http.ResponseWriter, r *http.Request) {
	s.serveEvents(w, r, coreEvents)
}

// listEventsV1 serves events.k8s.io/v1 Events.
func (s *Server) listEventsV1(w http.ResponseWriter, r *http.Request) {
	s.serveEvents(w, r, eventsV1)
}

// getKubeEvent serves one core/v1 Event by name.
func (s *Server) getKubeEvent(w http.ResponseWriter, r *http.Request) {
	s.getEvent(w, r, coreEvents)
}

// getEventV1 serves one events.k8s.io/v1 Event by name.
func (s *Server) getEventV1(w http.ResponseWriter, r *http.Request) {
	s.getEvent(w, r, eventsV1)
}

// serveEvents answers a list or watch of Events: the namespace of the
// path, field and label selectors, limit and continue (every page as of
// the first's resourceVersion), resourceVersion with resourceVersionMatch,
// and a Table for kubectl.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, res *apiResource) {
	o, err := parseListOptions(r, res)
	if err == nil && res.apiVersion != "v1" {
		o.fields, err = o.fields.Transform(func(f, v string) (string, string, error) { return eventsV1FieldLabels[f], v, nil })
	}
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	if o.watch {
		s.watchEvents(w, r, res, o)
		return
	}
	ctx := r.Context()
	head, err := s.Log.Head(ctx)
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	upTo, afterPos, afterSeq := head, int64(0), -1
	switch {
	case o.cont != nil:
		if afterPos, afterSeq, err = parseEventKey(o.cont.Start); err != nil {
			s.writeError(w, err, res.kind, "")
			return
		}
		if o.cont.RV > 0 {
			upTo = o.cont.RV
		}
	case o.rv != "" && o.rv != "0" && o.position > head:
		s.writeError(w, &watch.TooLargeError{Position: o.position, Current: head}, res.kind, "")
		return
	case o.rvMatch == metav1.ResourceVersionMatchExact:
		upTo = o.position
	}
	var (
		page   []derivedEvent
		lm     = metav1.ListMeta{ResourceVersion: strconv.FormatInt(upTo, 10)}
		reader = s.newEventReader(eventScopeFor(o))
	)
	// Read the log a batch at a time, only as far as the page needs.
	for reader.pos < upTo && lm.Continue == "" {
		evs, err := reader.batch(ctx, upTo)
		if err != nil {
			s.writeError(w, err, res.kind, "")
			return
		}
		for _, d := range evs {
			if !d.after(afterPos, afterSeq) || !o.matchEvent(d) {
				continue
			}
			if o.limit > 0 && len(page) == o.limit {
				last := page[len(page)-1]
				lm.Continue = continueToken{V: continueVersion, RV: upTo, Start: eventKey(last)}.encode()
				break
			}
			page = append(page, d)
		}
	}
	if wantsTable(w) {
		t := s.eventTable(page, lm.ResourceVersion, r)
		t.Continue = lm.Continue
		s.writeObject(w, http.StatusOK, &t)
		return
	}
	s.writeObject(w, http.StatusOK, eventList(res, page, lm))
}

// eventList is page as res's list kind.
func eventList(res *apiResource, page []derivedEvent, lm metav1.ListMeta) runtime.Object {
	if res.apiVersion == "v1" {
		l := &corev1.EventList{TypeMeta: metav1.TypeMeta{Kind: "EventList", APIVersion: "v1"}, ListMeta: lm, Items: make([]corev1.Event, len(page))}
		for i, d := range page {
			l.Items[i] = d.core()
		}
		return l
	}
	l := &eventsv1.EventList{TypeMeta: metav1.TypeMeta{Kind: "EventList", APIVersion: res.apiVersion}, ListMeta: lm, Items: make([]eventsv1.Event, len(page))}
	for i, d := range page {
		l.Items[i] = d.v1()
	}
	return l
}

// eventObject is d as res's kind.
func eventObject(res *apiResource, d derivedEvent) runtime.Object {
	if res.apiVersion == "v1" {
		e := d.core()
		return &e
	}
	e := d.v1()
	return &e
}

// getEvent answers one Event by the name herd gave it.
func (s *Server) getEvent(w http.ResponseWriter, r *http.Request, res *apiResource) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	notFound := fmt.Errorf("event %q not found in namespace %q: %w", name, ns, domain.ErrNotFound)
	object, pos, _, ok := parseEventName(name)
	if !ok {
		s.writeError(w, notFound, res.kind, name)
		return
	}
	ctx := r.Context()
	head, err := s.Log.Head(ctx)
	if err != nil {
		s.writeError(w, err, res.kind, name)
		return
	}
	if pos > head {
		s.writeError(w, notFound, res.kind, name)
		return
	}
	scope := eventScope{pods: true, workloads: true, namespace: ns, nodes: ns == metav1.NamespaceDefault, node: object}
	evs, err := s.newEventReader(scope).next(ctx, pos)
	if err != nil {
		s.writeError(w, err, res.kind, name)
		return
	}
	for _, d := range evs {
		if d.pos == pos && d.name() == name && d.namespace == ns {
			s.writeObject(w, http.StatusOK, eventObject(res, d))
			return
		}
	}
	s.writeError(w, notFound, res.kind, name)
}

// eventKey is where a listing resumes after d: "POSITION.INDEX".
func eventKey(d derivedEvent) string {
	return strconv.FormatInt(d.pos, 10) + "." + strconv.Itoa(d.seq)
}

// parseEventKey reads an eventKey.
func parseEventKey(key string) (pos int64, seq int, err error) {
	p, s, ok := strings.Cut(key, ".")
	if ok {
		pos, err = strconv.ParseInt(p, 10, 64)
		if err == nil {
			seq, err = strconv.Atoi(s)
		}
	}
	if !ok || err != nil || pos < 0 || seq < 0 {
		return 0, 0, badRequest("continue key is not valid: %q is no event's place in the log; start the list again without it", key)
	}
	return pos, seq, nil
}

// matchEvent says whether d is in the listing's namespace and matches
// its selectors. Events have no labels: only a selector that asks for
// none matches them.
func (o listOptions) matchEvent(d derivedEvent) bool {
	return (o.namespace == "" || d.namespace == o.namespace) &&
		o.labels.Matches(labels.Set{}) && o.fields.Matches(eventFields(d.core()))
}

// eventFields are the fields Events are selected by, under their core/v1
// labels.
func eventFields(e corev1.Event) fields.Set {
	return fields.Set{
		"metadata.name":                  e.Name,
		"metadata.namespace":             e.Namespace,
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         e.Source.Component,
		"type":                           e.Type,
	}
}

// eventScopeFor is what a listing needs to read: only nodes' events,
// only pods', only the workloads' or all, one pod's stream or one
// namespace's, as the path and the field selector allow.
func eventScopeFor(o listOptions) eventScope {
	sc := eventScope{nodes: true, pods: true, workloads: true}
	exact := func(f string) (string, bool) { return o.fields.RequiresExactMatch(f) }
	kind, kindSet := exact("involvedObject.kind")
	if kindSet {
		sc.nodes, sc.pods, sc.workloads = kind == "Node", kind == "Pod", workloadKinds[kind]
	}
	ns := o.namespace
	if v, ok := exact("metadata.namespace"); ok {
		if ns != "" && v != ns {
			return eventScope{}
		}
		ns = v
	}
	if ns != "" && ns != metav1.NamespaceDefault {
		sc.nodes = false
	}
	objNS := ns
	if v, ok := exact("involvedObject.namespace"); ok {
		if v == "" {
			sc.pods, sc.workloads = false, false
		} else {
			sc.nodes = false
			if objNS != "" && objNS != v {
				sc.pods, sc.workloads = false, false
			}
			objNS = v
		}
	}
	sc.namespace = objNS
	if name, ok := exact("involvedObject.name"); ok {
		sc.node = name
		// A workload's events come from its pods' streams too: only a
		// listing of pods' events alone reads one pod's stream.
		if objNS != "" && !sc.workloads {
			sc.podStream = domain.PodStream(objNS, name)
		}
	}
	return sc
}

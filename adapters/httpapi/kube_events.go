package httpapi

import (
	"fmt"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"herd/projections"
)

// recentEvents is how many timeline entries an unfiltered event list shows.
const recentEvents = 500

// listKubeEvents serves nodes' timelines as core/v1 Events, which is what
// kubectl describe node and kubectl get events show. fieldSelector
// involvedObject.name narrows it to one node.
func (s *Server) listKubeEvents(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("fieldSelector")
	sel, err := fields.ParseSelector(raw)
	if err != nil {
		s.writeError(w, badRequest("unable to parse fieldSelector %q: %v", raw, err), "Event", "")
		return
	}
	var (
		entries []projections.TimelineEntry
		uid     string
	)
	if name, ok := sel.RequiresExactMatch("involvedObject.name"); ok {
		if n, err := s.NodeView.GetIncludingDeleted(r.Context(), name); err == nil {
			uid = n.UID
		}
		entries, err = s.Timeline.Node(r.Context(), name, 0, 0)
	} else {
		entries, err = s.Timeline.Recent(r.Context(), recentEvents)
	}
	if err != nil {
		s.writeError(w, err, "Event", "")
		return
	}
	list := corev1.EventList{TypeMeta: metav1.TypeMeta{Kind: "EventList", APIVersion: "v1"}, Items: []corev1.Event{}}
	for _, e := range entries {
		ev := toKubeEvent(e)
		ev.InvolvedObject.UID = types.UID(uid)
		if sel.Matches(eventFields(ev)) {
			list.Items = append(list.Items, ev)
		}
	}
	if n := len(entries); n > 0 {
		list.ResourceVersion = strconv.FormatInt(entries[n-1].Position, 10)
	}
	s.writeObject(w, http.StatusOK, &list)
}

func toKubeEvent(e projections.TimelineEntry) corev1.Event {
	// The timeline decided the type where it knew the event (a pressure
	// True is a Warning, False is not).
	typ := corev1.EventTypeNormal
	if e.Type == projections.TimelineWarning {
		typ = corev1.EventTypeWarning
	}
	at := metav1.NewTime(e.At)
	return corev1.Event{
		TypeMeta: metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              fmt.Sprintf("%s.%d", e.Node, e.Position),
			Namespace:         metav1.NamespaceDefault,
			ResourceVersion:   strconv.FormatInt(e.Position, 10),
			CreationTimestamp: at,
		},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: e.Node, APIVersion: "v1"},
		Reason:         e.Kind,
		Message:        e.Message,
		Source:         corev1.EventSource{Component: "herd"},
		FirstTimestamp: at,
		LastTimestamp:  at,
		Count:          1,
		Type:           typ,
	}
}

// eventFields are the fields kubectl selects events by.
func eventFields(e corev1.Event) fields.Set {
	return fields.Set{
		"involvedObject.kind":      e.InvolvedObject.Kind,
		"involvedObject.name":      e.InvolvedObject.Name,
		"involvedObject.namespace": e.InvolvedObject.Namespace,
		"involvedObject.uid":       string(e.InvolvedObject.UID),
		"reason":                   e.Reason,
		"type":                     e.Type,
	}
}

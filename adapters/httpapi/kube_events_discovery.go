package httpapi

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// The events.k8s.io API group, which serves the same Events as core/v1 in
// their newer shape.

// coreEventKind serves core/v1 Events, which herd derives from its log:
// read-only, listed and watched by the handlers of kube_events.go.
func (s *Server) coreEventKind() *kind {
	return &kind{
		gv: corev1.SchemeGroupVersion, resource: "events", singular: "event", name: "Event",
		namespaced: true, shortNames: []string{"ev"}, watch: true, table: true,
		verbs: verbs{list: s.listKubeEvents, get: s.getKubeEvent},
	}
}

// eventKind serves the same Events in events.k8s.io/v1's shape.
func (s *Server) eventKind() *kind {
	return &kind{
		gv: eventsv1.SchemeGroupVersion, resource: "events", singular: "event", name: "Event",
		namespaced: true, shortNames: []string{"ev"}, watch: true, table: true,
		verbs: verbs{list: s.listEventsV1, get: s.getEventV1},
	}
}

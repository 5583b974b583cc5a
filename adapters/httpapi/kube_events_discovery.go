package httpapi

import (
	"net/http"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The events.k8s.io API group, which serves the same Events as core/v1 in
// their newer shape.
const (
	eventsGroup        = eventsv1.GroupName
	eventsGroupVersion = eventsGroup + "/v1"
)

// eventsResources answers /apis/events.k8s.io/v1.
func (s *Server) eventsResources(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: eventsGroupVersion,
		APIResources: []metav1.APIResource{
			{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", ShortNames: []string{"ev"}, Verbs: metav1.Verbs{"get", "list", "watch"}},
		},
	})
}

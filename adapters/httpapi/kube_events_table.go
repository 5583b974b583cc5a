package httpapi

import (
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// eventTable renders events the way kubectl get events prints them: LAST
// SEEN, TYPE, REASON, OBJECT, MESSAGE, and with -o wide SUBOBJECT,
// SOURCE, FIRST SEEN, COUNT and NAME, kube-apiserver's columns.
func (s *Server) eventTable(evs []derivedEvent, rv string, r *http.Request) metav1.Table {
	t := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Last Seen", Type: "string", Description: "How long ago the event happened"},
			{Name: "Type", Type: "string", Description: "Normal, or Warning for what needs an operator's attention"},
			{Name: "Reason", Type: "string", Description: "Why the event happened, in one word"},
			{Name: "Object", Type: "string", Description: "What the event is about"},
			{Name: "Subobject", Type: "string", Priority: 1, Description: "The part of the object (a container)"},
			{Name: "Source", Type: "string", Priority: 1, Description: "Who reported it, and on which node"},
			{Name: "Message", Type: "string", Description: "What happened, in words"},
			{Name: "First Seen", Type: "string", Priority: 1},
			{Name: "Count", Type: "integer", Priority: 1},
			{Name: "Name", Type: "string", Priority: 1},
		},
		Rows: []metav1.TableRow{},
	}
	now := s.Clock.Now()
	for _, d := range evs {
		e := d.core()
		ago := duration.HumanDuration(now.Sub(d.at))
		source := e.Source.Component
		if e.Source.Host != "" {
			source += ", " + e.Source.Host
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells: []any{
				ago, e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name,
				e.InvolvedObject.FieldPath, source, e.Message, ago, int64(e.Count), e.Name,
			},
			Object: rowObject(r, &e, e.ObjectMeta),
		})
	}
	return t
}

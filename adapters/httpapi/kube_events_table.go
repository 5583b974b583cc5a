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
			column("Last Seen", "How long ago the event happened"),
			column("Type", "Normal, or Warning for what needs an operator's attention"),
			column("Reason", "Why the event happened, in one word"), column("Object", "What the event is about"),
			wide("Subobject", "The part of the object (a container)"), wide("Source", "Who reported it, and on which node"),
			column("Message", "What happened, in words"), wide("First Seen", ""),
			{Name: "Count", Type: "integer", Priority: 1}, wide("Name", ""),
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

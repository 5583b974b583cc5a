package httpapi

import (
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// namespaceTable renders namespaces the way kubectl get namespaces prints
// them: NAME, STATUS (Active or Terminating), AGE.
func (s *Server) namespaceTable(nss []corev1.Namespace, rv string, r *http.Request) metav1.Table {
	t := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: "Name of the namespace"},
			{Name: "Status", Type: "string", Description: "The phase of the namespace: Active or Terminating"},
			{Name: "Age", Type: "string", Description: "Time since the namespace was created"},
		},
	}
	now := s.Clock.Now()
	for i := range nss {
		ns := &nss[i]
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{ns.Name, string(ns.Status.Phase), duration.HumanDuration(now.Sub(ns.CreationTimestamp.Time))},
			Object: rowObject(r, ns, ns.ObjectMeta),
		})
	}
	return t
}

package httpapi

import (
	"net/http"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// leaseTable renders leases the way kubectl get leases prints them: NAME,
// HOLDER (the holder's identity), AGE.
func (s *Server) leaseTable(ls []coordinationv1.Lease, rv string, r *http.Request) metav1.Table {
	t := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: "Name of the lease"},
			{Name: "Holder", Type: "string", Description: "The identity of the lease's holder"},
			{Name: "Age", Type: "string", Description: "Time since the lease was created"},
		},
	}
	now := s.Clock.Now()
	for i := range ls {
		l := &ls[i]
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{l.Name, holder, duration.HumanDuration(now.Sub(l.CreationTimestamp.Time))},
			Object: rowObject(r, l, l.ObjectMeta),
		})
	}
	return t
}

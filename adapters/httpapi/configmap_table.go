package httpapi

import (
	"encoding/json"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// configMapTable renders ConfigMaps the way kubectl get configmaps prints
// them: NAME, DATA (the number of keys), AGE.
func (s *Server) configMapTable(cms []corev1.ConfigMap, rv string, r *http.Request) metav1.Table {
	t := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: "Name of the ConfigMap"},
			{Name: "Data", Type: "integer", Description: "Number of keys in data and binaryData"},
			{Name: "Age", Type: "string", Description: "Time since the ConfigMap was created"},
		},
	}
	now := s.Clock.Now()
	for i := range cms {
		c := &cms[i]
		var obj runtime.RawExtension
		switch r.URL.Query().Get("includeObject") {
		case "None":
		case "Object":
			obj.Raw, _ = json.Marshal(c)
		default:
			obj.Raw, _ = json.Marshal(metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
				ObjectMeta: c.ObjectMeta,
			})
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{c.Name, int64(len(c.Data) + len(c.BinaryData)), duration.HumanDuration(now.Sub(c.CreationTimestamp.Time))},
			Object: obj,
		})
	}
	return t
}

package httpapi

import (
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// configMapKind serves ConfigMaps (core/v1), as `kubectl create
// configmap`, `kubectl edit` and client-go write them: their labels,
// annotations, owners and data from create, replace and patch (the data
// kept once immutable), no status. A node reads only the ConfigMaps it
// is let to (nodeRule).
func (s *Server) configMapKind() *kind {
	k := modelKind[domain.ConfigMap, domain.ConfigMapSpec, domain.NoStatus, corev1.ConfigMap, *corev1.ConfigMap]{
		kind: &kind{
			gv: corev1.SchemeGroupVersion, resource: "configmaps", singular: "configmap", name: "ConfigMap",
			namespaced: true, shortNames: []string{"cm"},
		},
		aggregate: domain.ConfigMapAggregate, fold: projections.FoldConfigMap, view: s.ConfigMapView, exec: s.ConfigMaps,
		toAPI: conversions.ConfigMapToAPI,
		fromAPI: func(in corev1.ConfigMap) (domain.CreateConfigMap, error) {
			return conversions.ConfigMapFromAPI(in), nil
		},
		rows: configMapRows,
	}.describe(s)
	k.nodeRule = mainGate.authorizeNodeConfigMap
	return k
}

// configMapRows are the columns kubectl get configmaps prints: NAME,
// DATA (the number of keys), AGE.
func configMapRows(s *Server, cms []corev1.ConfigMap, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{nameColumn("ConfigMap"), {Name: "Data", Type: "integer", Description: "Number of keys in data and binaryData"}, ageColumn("the ConfigMap was created")}}
	now := s.Clock.Now()
	for _, c := range cms {
		t.cells = append(t.cells, []any{c.Name, int64(len(c.Data) + len(c.BinaryData)), age(now, c.CreationTimestamp)})
	}
	return t
}

package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// configMapKind serves ConfigMaps (core/v1), as `kubectl create
// configmap`, `kubectl edit` and client-go write them.
func (s *Server) configMapKind() *kind {
	o := &object[domain.ConfigMap, domain.ConfigMapCommand, corev1.ConfigMap, *corev1.ConfigMap]{
		kind: &kind{
			gv: corev1.SchemeGroupVersion, resource: "configmaps", singular: "configmap", name: "ConfigMap",
			namespaced: true, shortNames: []string{"cm"},
		},
		listing: &listing[domain.ConfigMap]{
			aggregate: domain.ConfigMapAggregate, fold: projections.FoldConfigMap,
			rows: s.ConfigMapView.Rows, hasView: s.ConfigMapView != nil,
			exists: domain.ConfigMap.Exists,
			meta: func(c domain.ConfigMap) (domain.Key, int64, map[string]string) {
				return domain.Key{Namespace: c.Namespace, Name: c.Name}, c.ResourceVersion, conversions.ConfigMapToAPI(c).Labels
			},
		},
		read: func(ctx context.Context, key domain.Key) (domain.ConfigMap, error) {
			return s.ConfigMapView.Get(ctx, key.Namespace, key.Name)
		},
		exec:  s.ConfigMaps,
		toAPI: conversions.ConfigMapToAPI,
		create: func(in *corev1.ConfigMap, key domain.Key) (domain.ConfigMapCommand, error) {
			return domain.CreateConfigMap{Namespace: key.Namespace, Name: key.Name, UID: uuid.NewString(), Content: conversions.ConfigMapFromAPI(*in)}, nil
		},
		update: func(in *corev1.ConfigMap, rv int64) (domain.ConfigMapCommand, error) {
			return ifVersion[domain.ConfigMapCommand](rv, domain.UpdateConfigMap{Content: conversions.ConfigMapFromAPI(*in)}), nil
		},
		delete: func(d deletion) domain.ConfigMapCommand {
			return ifVersion[domain.ConfigMapCommand](d.resourceVersion, domain.DeleteConfigMap{})
		},
		rows: configMapRows,
	}
	k := o.describe(s)
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

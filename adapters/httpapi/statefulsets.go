package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// statefulSetKind serves StatefulSets (apps/v1), as kubectl and client-go
// write them: the spec from create, replace and patch (only the
// replicas, template, update strategy, revision history limit and
// minReadySeconds changing once created), the status from the
// reconciler that keeps the pods, and the number of replicas from
// kubectl scale through the scale subresource. An update keeps the
// owners the StatefulSet was created with.
func (s *Server) statefulSetKind() *kind {
	o := &object[domain.StatefulSet, domain.StatefulSetCommand, appsv1.StatefulSet, *appsv1.StatefulSet]{
		kind: &kind{
			gv: appsv1.SchemeGroupVersion, resource: "statefulsets", singular: "statefulset", name: "StatefulSet",
			namespaced: true, shortNames: []string{"sts"}, categories: []string{"all"},
		},
		listing: &listing[domain.StatefulSet]{
			aggregate: domain.StatefulSetAggregate, fold: projections.FoldStatefulSet,
			rows: s.StatefulSetView.Rows, hasView: s.StatefulSetView != nil,
			exists: domain.StatefulSet.Exists,
			meta: func(st domain.StatefulSet) (domain.Key, int64, map[string]string) {
				return st.Key(), st.ResourceVersion, st.Labels
			},
		},
		read: func(ctx context.Context, key domain.Key) (domain.StatefulSet, error) {
			return s.StatefulSetView.Get(ctx, key.Namespace, key.Name)
		},
		exec:  s.StatefulSets,
		toAPI: conversions.StatefulSetToAPI,
		create: func(in *appsv1.StatefulSet, key domain.Key) (domain.StatefulSetCommand, error) {
			c, err := conversions.StatefulSetFromAPI(*in)
			c.Meta.Namespace, c.Meta.Name, c.Meta.UID = key.Namespace, key.Name, uuid.NewString()
			return c, err
		},
		update: func(in *appsv1.StatefulSet, rv int64) (domain.StatefulSetCommand, error) {
			c, err := conversions.StatefulSetFromAPI(*in)
			return ifVersion[domain.StatefulSetCommand](rv, domain.UpdateStatefulSet(c)), err
		},
		status: func(in *appsv1.StatefulSet, rv int64) (domain.StatefulSetCommand, error) {
			return ifVersion[domain.StatefulSetCommand](rv, domain.RecordStatefulSetStatus{Status: conversions.StatefulSetStatusFromAPI(in.Status)}), nil
		},
		delete: func(d deletion) domain.StatefulSetCommand {
			return ifVersion[domain.StatefulSetCommand](d.resourceVersion, domain.DeleteStatefulSet{Propagation: d.propagation})
		},
		rows: statefulSetRows,
	}
	k := o.describe(s)
	k.subresources = append(k.subresources, scaleOf(s, o, conversions.StatefulSetScaleToAPI,
		func(replicas int32, rv int64) domain.StatefulSetCommand {
			return ifVersion[domain.StatefulSetCommand](rv, domain.ScaleStatefulSet{Replicas: replicas})
		}))
	return k
}

// statefulSetRows are the columns kubectl get statefulsets prints: NAME,
// READY (ready of desired), AGE, and with -o wide CONTAINERS and IMAGES,
// in Kubernetes' words (its printStatefulSet).
func statefulSetRows(s *Server, sts []appsv1.StatefulSet, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{
		nameColumn("StatefulSet"),
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		ageColumn("the StatefulSet was created"),
		wide("Containers", "Names of each container in the template"), wide("Images", "Images of each container in the template"),
	}}
	now := s.Clock.Now()
	for _, st := range sts {
		var names, images []string
		for _, c := range st.Spec.Template.Spec.Containers {
			names, images = append(names, c.Name), append(images, c.Image)
		}
		var desired int32
		if st.Spec.Replicas != nil {
			desired = *st.Spec.Replicas
		}
		t.cells = append(t.cells, []any{
			st.Name, fmt.Sprintf("%d/%d", st.Status.ReadyReplicas, desired), age(now, st.CreationTimestamp),
			strings.Join(names, ","), strings.Join(images, ","),
		})
	}
	return t
}

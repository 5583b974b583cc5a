package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/google/uuid"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// daemonSetKind serves DaemonSets (apps/v1), as kubectl and client-go
// write them: the spec from create, replace and patch (the selector
// fixed once created), and the status from the controller that keeps
// one pod on each node. kubectl drain reads a pod's DaemonSet here to
// leave its pods alone with --ignore-daemonsets. An update keeps the
// owners the DaemonSet was created with.
func (s *Server) daemonSetKind() *kind {
	o := &object[domain.DaemonSet, domain.DaemonSetCommand, appsv1.DaemonSet, *appsv1.DaemonSet]{
		kind: &kind{
			gv: appsv1.SchemeGroupVersion, resource: "daemonsets", singular: "daemonset", name: "DaemonSet",
			namespaced: true, shortNames: []string{"ds"}, categories: []string{"all"},
		},
		listing: &listing[domain.DaemonSet]{
			aggregate: domain.DaemonSetAggregate, fold: projections.FoldDaemonSet,
			rows: s.DaemonSetView.Rows, hasView: s.DaemonSetView != nil,
			exists: domain.DaemonSet.Exists,
			meta: func(ds domain.DaemonSet) (domain.Key, int64, map[string]string) {
				return ds.Key(), ds.ResourceVersion, ds.Labels
			},
		},
		read: func(ctx context.Context, key domain.Key) (domain.DaemonSet, error) {
			return s.DaemonSetView.Get(ctx, key.Namespace, key.Name)
		},
		exec:  s.DaemonSets,
		toAPI: conversions.DaemonSetToAPI,
		create: func(in *appsv1.DaemonSet, key domain.Key) (domain.DaemonSetCommand, error) {
			c, err := conversions.DaemonSetFromAPI(*in)
			c.Namespace, c.Name, c.UID = key.Namespace, key.Name, uuid.NewString()
			return c, err
		},
		update: func(in *appsv1.DaemonSet, rv int64) (domain.DaemonSetCommand, error) {
			c, err := conversions.DaemonSetFromAPI(*in)
			return ifVersion[domain.DaemonSetCommand](rv, domain.UpdateDaemonSet{Labels: c.Labels, Annotations: c.Annotations, Spec: c.Spec}), err
		},
		status: func(in *appsv1.DaemonSet, rv int64) (domain.DaemonSetCommand, error) {
			return ifVersion[domain.DaemonSetCommand](rv, domain.RecordDaemonSetStatus{Status: conversions.DaemonSetStatusFromAPI(in.Status)}), nil
		},
		delete: func(d deletion) domain.DaemonSetCommand {
			return ifVersion[domain.DaemonSetCommand](d.resourceVersion, domain.DeleteDaemonSet{Propagation: d.propagation})
		},
		rows: daemonSetRows,
	}
	return o.describe(s)
}

// daemonSetRows are the columns kubectl get daemonsets prints: NAME,
// DESIRED, CURRENT, READY, UP-TO-DATE, AVAILABLE, NODE SELECTOR, AGE,
// and with -o wide CONTAINERS, IMAGES and SELECTOR.
func daemonSetRows(s *Server, dss []appsv1.DaemonSet, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{
		nameColumn("DaemonSet"),
		{Name: "Desired", Type: "integer", Description: "The number of nodes that should be running the daemon pod"},
		{Name: "Current", Type: "integer", Description: "The number of nodes running at least one daemon pod that are supposed to"},
		{Name: "Ready", Type: "integer", Description: "The number of nodes whose daemon pod is ready"},
		{Name: "Up-to-date", Type: "integer", Description: "The number of nodes running the updated daemon pod"},
		{Name: "Available", Type: "integer", Description: "The number of nodes whose daemon pod has been ready for minReadySeconds"},
		column("Node Selector", "The node selector of the template"),
		ageColumn("the DaemonSet was created"),
		wide("Containers", "Names of each container in the template"), wide("Images", "Images of each container in the template"),
		wide("Selector", "The label selector of the DaemonSet's pods"),
	}}
	now := s.Clock.Now()
	for _, ds := range dss {
		var names, images []string
		for _, c := range ds.Spec.Template.Spec.Containers {
			names, images = append(names, c.Name), append(images, c.Image)
		}
		st := ds.Status
		t.cells = append(t.cells, []any{
			ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
			int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
			age(now, ds.CreationTimestamp),
			strings.Join(names, ","), strings.Join(images, ","), metav1.FormatLabelSelector(ds.Spec.Selector),
		})
	}
	return t
}

package httpapi

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// workloadKind is the kind of a workload (a Deployment, a Job...) in
// group version gv: namespaced, served as resource, named in the
// singular as its kind in lower case, known to kubectl by shortNames,
// and among what kubectl get all lists.
func workloadKind(gv schema.GroupVersion, name, resource string, shortNames ...string) *kind {
	return &kind{gv: gv, resource: resource, singular: strings.ToLower(name), name: name,
		namespaced: true, shortNames: shortNames, categories: []string{"all"}}
}

// workloadRow is what a workload's row in kubectl get's table is made
// of beside its own cells: its metadata (NAME and AGE), its pod
// template's spec (CONTAINERS and IMAGES) and its selector (SELECTOR).
type workloadRow struct {
	meta     *metav1.ObjectMeta
	template *corev1.PodSpec
	selector *metav1.LabelSelector
	cells    []any
}

// workloadRows is the table kubectl get prints of a workload kind, as
// its printers for Deployments, ReplicaSets, DaemonSets, StatefulSets,
// Jobs and CronJobs lay it out: NAME, the kind's own columns, AGE, and
// with -o wide CONTAINERS and IMAGES of its pod template and, for a kind
// whose selector is described (selector not empty), SELECTOR. row gives
// each item's row at now.
func workloadRows[A any](s *Server, items []A, kind, selector string, columns []metav1.TableColumnDefinition,
	row func(a *A, now time.Time) workloadRow) tableRows {
	t := tableRows{columns: append(append([]metav1.TableColumnDefinition{nameColumn(kind)}, columns...),
		ageColumn("the "+kind+" was created"),
		wide("Containers", "Names of each container in the template"), wide("Images", "Images of each container in the template"))}
	if selector != "" {
		t.columns = append(t.columns, wide("Selector", selector))
	}
	now := s.Clock.Now()
	for i := range items {
		r := row(&items[i], now)
		names, images := containerCells(*r.template)
		cells := append(append([]any{r.meta.Name}, r.cells...), age(now, r.meta.CreationTimestamp), names, images)
		if selector != "" {
			cells = append(cells, metav1.FormatLabelSelector(r.selector))
		}
		t.cells = append(t.cells, cells)
	}
	return t
}

package httpapi

import (
	"net/http"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// podDisruptionBudgetKind serves PodDisruptionBudgets (policy/v1), as
// kubectl and client-go write them: the spec from create, replace and
// patch (every field of it may change, each change a new generation),
// the status from the disruption reconciler, and kubectl get pdb's
// columns. Evictions spend them (pod_subresources.go). An update
// replaces the owners, as in Kubernetes.
func (s *Server) podDisruptionBudgetKind() *kind {
	return modelKind[domain.PodDisruptionBudget, domain.PodDisruptionBudgetSpec, domain.PodDisruptionBudgetStatus,
		policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudget]{
		kind: &kind{
			gv: policyv1.SchemeGroupVersion, resource: "poddisruptionbudgets", singular: "poddisruptionbudget", name: "PodDisruptionBudget",
			namespaced: true, shortNames: []string{"pdb"},
		},
		aggregate: domain.PodDisruptionBudgetAggregate, fold: projections.FoldPodDisruptionBudget,
		view: s.PodDisruptionBudgetView, exec: s.PodDisruptionBudgets,
		toAPI: conversions.PodDisruptionBudgetToAPI, fromAPI: conversions.PodDisruptionBudgetFromAPI,
		status: func(in *policyv1.PodDisruptionBudget) domain.PodDisruptionBudgetStatus {
			return conversions.PodDisruptionBudgetStatusFromAPI(in.Status)
		},
		rows: podDisruptionBudgetRows,
	}.describe(s)
}

// podDisruptionBudgetRows are the columns kubectl get pdb prints: NAME,
// MIN AVAILABLE, MAX UNAVAILABLE (N/A for the bound not set), ALLOWED
// DISRUPTIONS and AGE.
func podDisruptionBudgetRows(s *Server, pdbs []policyv1.PodDisruptionBudget, _ *http.Request) tableRows {
	t := tableRows{columns: []metav1.TableColumnDefinition{
		nameColumn("PodDisruptionBudget"),
		{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available."},
		{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable."},
		{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time."},
		ageColumn("the PodDisruptionBudget was created"),
	}}
	now := s.Clock.Now()
	for _, b := range pdbs {
		minAvailable, maxUnavailable := "N/A", "N/A"
		if b.Spec.MinAvailable != nil {
			minAvailable = b.Spec.MinAvailable.String()
		}
		if b.Spec.MaxUnavailable != nil {
			maxUnavailable = b.Spec.MaxUnavailable.String()
		}
		t.cells = append(t.cells, []any{b.Name, minAvailable, maxUnavailable, int64(b.Status.DisruptionsAllowed), age(now, b.CreationTimestamp)})
	}
	return t
}

package conversions

import (
	"strconv"
	"strings"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
)

// PodDisruptionBudgetToAPI renders a domain budget as a policy/v1
// PodDisruptionBudget.
func PodDisruptionBudgetToAPI(b domain.PodDisruptionBudget) policyv1.PodDisruptionBudget {
	out := policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{Kind: "PodDisruptionBudget", APIVersion: policyv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(b.ObjectMeta, b.ResourceVersion),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable:   IntOrPercentToAPI(b.Spec.MinAvailable),
			MaxUnavailable: IntOrPercentToAPI(b.Spec.MaxUnavailable),
		},
		Status: policyv1.PodDisruptionBudgetStatus{
			ObservedGeneration: b.Status.ObservedGeneration,
			DisruptionsAllowed: b.Status.DisruptionsAllowed,
			CurrentHealthy:     b.Status.CurrentHealthy,
			DesiredHealthy:     b.Status.DesiredHealthy,
			ExpectedPods:       b.Status.ExpectedPods,
		},
	}
	if b.Spec.Selector != nil {
		out.Spec.Selector = SelectorToAPI(*b.Spec.Selector)
	}
	if p := b.Spec.UnhealthyPodEvictionPolicy; p != "" {
		policy := policyv1.UnhealthyPodEvictionPolicyType(p)
		out.Spec.UnhealthyPodEvictionPolicy = &policy
	}
	if len(b.Status.DisruptedPods) > 0 {
		out.Status.DisruptedPods = map[string]metav1.Time{}
		for pod, at := range b.Status.DisruptedPods {
			out.Status.DisruptedPods[pod] = metav1.NewTime(at)
		}
	}
	for _, c := range b.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, metav1.Condition{
			Type: c.Type, Status: metav1.ConditionStatus(c.Status), ObservedGeneration: c.ObservedGeneration,
			LastTransitionTime: metav1.NewTime(c.LastTransitionTime), Reason: c.Reason, Message: c.Message,
		})
	}
	return out
}

// IntOrPercentToAPI is a count or a percentage as the API writes it: a
// number, or a string "25%".
func IntOrPercentToAPI(v *domain.IntOrPercent) *intstr.IntOrString {
	if v == nil {
		return nil
	}
	out := intstr.FromInt32(v.Value)
	if v.Percent {
		out = intstr.FromString(v.String())
	}
	return &out
}

// PodDisruptionBudgetFromAPI reads what a client sets on a budget — its
// labels, annotations, owners and spec. A body kube-apiserver would
// refuse for its form (a kind or apiVersion not the budget's, a bound
// that is neither a number nor a percentage, an unknown policy) is
// refused here with its field paths; the domain refuses the rest (both
// bounds set, a negative one). The status is the reconciler's
// (PodDisruptionBudgetStatusFromAPI).
func PodDisruptionBudgetFromAPI(in policyv1.PodDisruptionBudget) (domain.CreatePodDisruptionBudget, error) {
	errs := validateTypeMeta(in.TypeMeta, "PodDisruptionBudget", policyv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	spec := field.NewPath("spec")
	minAvailable, minErrs := IntOrPercentFromAPI(in.Spec.MinAvailable, spec.Child("minAvailable"))
	maxUnavailable, maxErrs := IntOrPercentFromAPI(in.Spec.MaxUnavailable, spec.Child("maxUnavailable"))
	errs = append(append(errs, minErrs...), maxErrs...)
	if err := invalidFrom("PodDisruptionBudget", in.Name, errs); err != nil {
		return domain.CreatePodDisruptionBudget{}, err
	}
	out := domain.CreatePodDisruptionBudget{
		Meta: objectMetaFromAPI(in.ObjectMeta),
		Spec: domain.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable},
	}
	if in.Spec.Selector != nil {
		sel := SelectorFromAPI(in.Spec.Selector)
		out.Spec.Selector = &sel
	}
	if p := in.Spec.UnhealthyPodEvictionPolicy; p != nil {
		out.Spec.UnhealthyPodEvictionPolicy = string(*p)
	}
	return out, nil
}

// IntOrPercentFromAPI reads a budget's bound: a number, or a percentage
// written "N%".
func IntOrPercentFromAPI(in *intstr.IntOrString, path *field.Path) (*domain.IntOrPercent, field.ErrorList) {
	if in == nil {
		return nil, nil
	}
	if in.Type == intstr.Int {
		return &domain.IntOrPercent{Value: in.IntVal}, nil
	}
	digits, ok := strings.CutSuffix(in.StrVal, "%")
	n, err := strconv.ParseInt(digits, 10, 32)
	if !ok || err != nil || digits == "" || strings.ContainsAny(digits, "+-") {
		return nil, field.ErrorList{field.Invalid(path, in.StrVal, "must be an integer or percentage (e.g '5%')")}
	}
	return &domain.IntOrPercent{Value: int32(n), Percent: true}, nil
}

// PodDisruptionBudgetStatusFromAPI reads the status a controller writes
// through poddisruptionbudgets/NAME/status.
func PodDisruptionBudgetStatusFromAPI(in policyv1.PodDisruptionBudgetStatus) domain.PodDisruptionBudgetStatus {
	out := domain.PodDisruptionBudgetStatus{
		ObservedGeneration: in.ObservedGeneration, DisruptionsAllowed: in.DisruptionsAllowed,
		CurrentHealthy: in.CurrentHealthy, DesiredHealthy: in.DesiredHealthy, ExpectedPods: in.ExpectedPods,
	}
	if len(in.DisruptedPods) > 0 {
		out.DisruptedPods = map[string]time.Time{}
		for pod, at := range in.DisruptedPods {
			out.DisruptedPods[pod] = at.UTC()
		}
	}
	for _, c := range in.Conditions {
		out.Conditions = append(out.Conditions, domain.BudgetCondition{
			Type: c.Type, Status: domain.ConditionStatus(c.Status), ObservedGeneration: c.ObservedGeneration,
			LastTransitionTime: c.LastTransitionTime.UTC(), Reason: c.Reason, Message: c.Message,
		})
	}
	return out
}

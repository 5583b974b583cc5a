package conversions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// SelectorToAPI renders a label selector as metav1.LabelSelector.
func SelectorToAPI(s domain.LabelSelector) *metav1.LabelSelector {
	out := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, r := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator), Values: r.Values,
		})
	}
	return out
}

// SelectorFromAPI reads a metav1.LabelSelector; nil is the empty
// selector, which a workload refuses.
func SelectorFromAPI(in *metav1.LabelSelector) domain.LabelSelector {
	if in == nil {
		return domain.LabelSelector{}
	}
	out := domain.LabelSelector{MatchLabels: in.MatchLabels}
	for _, r := range in.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, domain.SelectorRequirement{
			Key: r.Key, Operator: string(r.Operator), Values: r.Values,
		})
	}
	return out
}

// SelectorString is a selector as kubectl prints it and a Scale carries
// it ("app=web,tier in (a,b)"); "" when it does not parse, which the
// domain never lets a workload keep.
func SelectorString(s domain.LabelSelector) string {
	sel, err := metav1.LabelSelectorAsSelector(SelectorToAPI(s))
	if err != nil {
		return ""
	}
	return sel.String()
}

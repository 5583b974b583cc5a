package conversions

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

// podFailurePolicyToAPI renders a Job's pod failure policy as batch/v1's;
// nil for none.
func podFailurePolicyToAPI(p *domain.JobPodFailurePolicy) *batchv1.PodFailurePolicy {
	if p == nil {
		return nil
	}
	out := &batchv1.PodFailurePolicy{Rules: make([]batchv1.PodFailurePolicyRule, len(p.Rules))}
	for i, r := range p.Rules {
		rule := batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyAction(r.Action)}
		if c := r.OnExitCodes; c != nil {
			rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptrCopy(c.ContainerName),
				Operator: batchv1.PodFailurePolicyOnExitCodesOperator(c.Operator), Values: append([]int32(nil), c.Values...)}
		}
		for _, c := range r.OnPodConditions {
			rule.OnPodConditions = append(rule.OnPodConditions, batchv1.PodFailurePolicyOnPodConditionsPattern{
				Type: corev1.PodConditionType(c.Type), Status: corev1.ConditionStatus(c.Status)})
		}
		out.Rules[i] = rule
	}
	return out
}

// podFailurePolicyFromAPI reads batch/v1's pod failure policy with its
// default, as kube-apiserver decodes it: a pod condition pattern's status
// True. The domain checks it.
func podFailurePolicyFromAPI(p *batchv1.PodFailurePolicy) *domain.JobPodFailurePolicy {
	if p == nil {
		return nil
	}
	out := &domain.JobPodFailurePolicy{Rules: make([]domain.PodFailurePolicyRule, len(p.Rules))}
	for i, r := range p.Rules {
		rule := domain.PodFailurePolicyRule{Action: string(r.Action)}
		if c := r.OnExitCodes; c != nil {
			rule.OnExitCodes = &domain.PodFailurePolicyOnExitCodes{ContainerName: ptrCopy(c.ContainerName),
				Operator: string(c.Operator), Values: append([]int32(nil), c.Values...)}
		}
		for _, c := range r.OnPodConditions {
			status := domain.ConditionStatus(c.Status)
			if status == "" {
				status = domain.ConditionTrue
			}
			rule.OnPodConditions = append(rule.OnPodConditions, domain.PodFailurePolicyOnCondition{Type: string(c.Type), Status: status})
		}
		out.Rules[i] = rule
	}
	return out
}

// successPolicyToAPI renders an Indexed Job's success policy as
// batch/v1's; nil for none.
func successPolicyToAPI(p *domain.JobSuccessPolicy) *batchv1.SuccessPolicy {
	if p == nil {
		return nil
	}
	out := &batchv1.SuccessPolicy{Rules: make([]batchv1.SuccessPolicyRule, len(p.Rules))}
	for i, r := range p.Rules {
		out.Rules[i] = batchv1.SuccessPolicyRule{SucceededIndexes: ptrCopy(r.SucceededIndexes), SucceededCount: ptrCopy(r.SucceededCount)}
	}
	return out
}

// successPolicyFromAPI reads batch/v1's success policy; the domain checks
// it.
func successPolicyFromAPI(p *batchv1.SuccessPolicy) *domain.JobSuccessPolicy {
	if p == nil {
		return nil
	}
	out := &domain.JobSuccessPolicy{Rules: make([]domain.SuccessPolicyRule, len(p.Rules))}
	for i, r := range p.Rules {
		out.Rules[i] = domain.SuccessPolicyRule{SucceededIndexes: ptrCopy(r.SucceededIndexes), SucceededCount: ptrCopy(r.SucceededCount)}
	}
	return out
}

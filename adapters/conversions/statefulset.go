package conversions

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
)

// StatefulSetToAPI renders a domain StatefulSet as an apps/v1 StatefulSet.
func StatefulSetToAPI(s domain.StatefulSet) appsv1.StatefulSet {
	replicas := s.Spec.Replicas
	strategy := appsv1.StatefulSetUpdateStrategy{Type: appsv1.StatefulSetUpdateStrategyType(s.Spec.UpdateStrategy.Type)}
	if p := s.Spec.UpdateStrategy.Partition; p != nil {
		// A StatefulSet recorded before herd kept maxUnavailable had 1.
		unavailable := s.Spec.UpdateStrategy.MaxUnavailable
		if unavailable == nil {
			unavailable = domain.Ints(1)
		}
		strategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptrCopy(p), MaxUnavailable: IntOrPercentToAPI(unavailable)}
	}
	out := appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{Kind: "StatefulSet", APIVersion: appsv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(s.ObjectMeta, s.ResourceVersion),
		Spec: appsv1.StatefulSetSpec{
			Replicas: &replicas, Selector: SelectorToAPI(s.Spec.Selector), Template: podTemplateToAPI(s.Spec.Template),
			ServiceName: s.Spec.ServiceName, PodManagementPolicy: appsv1.PodManagementPolicyType(s.Spec.PodManagementPolicy),
			UpdateStrategy: strategy, MinReadySeconds: s.Spec.MinReadySeconds, RevisionHistoryLimit: ptrCopy(s.Spec.RevisionHistoryLimit),
		},
		Status: appsv1.StatefulSetStatus{
			ObservedGeneration: s.Status.ObservedGeneration, Replicas: s.Status.Replicas, ReadyReplicas: s.Status.ReadyReplicas,
			CurrentReplicas: s.Status.CurrentReplicas, UpdatedReplicas: s.Status.UpdatedReplicas,
			AvailableReplicas: s.Status.AvailableReplicas,
			CurrentRevision:   s.Status.CurrentRevision, UpdateRevision: s.Status.UpdateRevision,
		},
	}
	return out
}

// StatefulSetFromAPI reads what a client sets on a StatefulSet — its
// labels, annotations, owners and spec — with apps/v1's defaults (one
// replica, OrderedReady, a rolling update from partition 0, ten
// revisions kept, and the pod defaults of its template), on a create as
// on an update, as kube-apiserver defaults every body it decodes. A
// body kube-apiserver would refuse is refused here too, with its field
// paths; so is one that asks for what herd does not have: volume claim
// templates (herd has no persistent volumes) and ordinals not starting
// at 0.
func StatefulSetFromAPI(in appsv1.StatefulSet) (domain.CreateStatefulSet, error) {
	errs := validateTypeMeta(in.TypeMeta, "StatefulSet", appsv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	errs = append(errs, validateWorkloadTemplate(&in.Spec.Template)...)
	spec := field.NewPath("spec")
	if len(in.Spec.VolumeClaimTemplates) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("volumeClaimTemplates"), "herd has no persistent volumes"))
	}
	if o := in.Spec.Ordinals; o != nil && o.Start != 0 {
		errs = append(errs, field.Forbidden(spec.Child("ordinals", "start"), "herd numbers a StatefulSet's pods from 0"))
	}
	if err := invalidFrom("StatefulSet", in.Name, errs); err != nil {
		return domain.CreateStatefulSet{}, err
	}
	tmpl, err := podTemplateFromAPI("StatefulSet", in.Name, in.Spec.Template)
	if err != nil {
		return domain.CreateStatefulSet{}, err
	}
	out := domain.CreateStatefulSet{
		Meta: objectMetaFromAPI(in.ObjectMeta),
		Spec: domain.StatefulSetSpec{
			Replicas: defaultReplicas, Selector: SelectorFromAPI(in.Spec.Selector), Template: tmpl,
			ServiceName: in.Spec.ServiceName, PodManagementPolicy: string(in.Spec.PodManagementPolicy),
			UpdateStrategy:  domain.StatefulSetUpdateStrategy{Type: string(in.Spec.UpdateStrategy.Type)},
			MinReadySeconds: in.Spec.MinReadySeconds,
		},
	}
	if in.Spec.Replicas != nil {
		out.Spec.Replicas = *in.Spec.Replicas
	}
	if ru := in.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		out.Spec.UpdateStrategy.Partition = ptrCopy(ru.Partition)
		unavailable, errs := IntOrPercentFromAPI(ru.MaxUnavailable, spec.Child("updateStrategy", "rollingUpdate", "maxUnavailable"))
		if err := invalidFrom("StatefulSet", in.Name, errs); err != nil {
			return domain.CreateStatefulSet{}, err
		}
		out.Spec.UpdateStrategy.MaxUnavailable = unavailable
	}
	out.Spec.RevisionHistoryLimit = ptrCopy(in.Spec.RevisionHistoryLimit)
	domain.DefaultStatefulSetSpec(&out.Spec)
	return out, nil
}

// StatefulSetStatusFromAPI reads the status a controller writes through
// statefulsets/NAME/status.
func StatefulSetStatusFromAPI(in appsv1.StatefulSetStatus) domain.StatefulSetStatus {
	return domain.StatefulSetStatus{
		ObservedGeneration: in.ObservedGeneration, Replicas: in.Replicas, ReadyReplicas: in.ReadyReplicas,
		CurrentReplicas: in.CurrentReplicas, UpdatedReplicas: in.UpdatedReplicas, AvailableReplicas: in.AvailableReplicas,
		CurrentRevision: in.CurrentRevision, UpdateRevision: in.UpdateRevision,
	}
}

// StatefulSetScaleToAPI is the StatefulSet's scale subresource
// (autoscaling/v1 Scale), as kubectl scale reads it.
func StatefulSetScaleToAPI(s domain.StatefulSet) autoscalingv1.Scale {
	return scaleToAPI(s.ObjectMeta, s.ResourceVersion, s.Spec.Replicas, s.Status.Replicas, s.Spec.Selector)
}

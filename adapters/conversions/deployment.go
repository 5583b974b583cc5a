package conversions

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
)

// defaultProgressDeadlineSeconds is apps/v1's progress deadline for a
// Deployment that does not say.
const defaultProgressDeadlineSeconds int32 = 600

// DeploymentToAPI renders a domain Deployment as an apps/v1 Deployment.
func DeploymentToAPI(d domain.Deployment) appsv1.Deployment {
	replicas, history, deadline := d.Spec.Replicas, d.Spec.RevisionHistoryLimit, d.Spec.ProgressDeadlineSeconds
	strategy := appsv1.DeploymentStrategy{Type: appsv1.DeploymentStrategyType(d.Spec.Strategy.Type)}
	if d.Spec.Strategy.Type == domain.RollingUpdateStrategy {
		strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{
			MaxSurge: IntOrPercentToAPI(d.Spec.Strategy.MaxSurge), MaxUnavailable: IntOrPercentToAPI(d.Spec.Strategy.MaxUnavailable)}
	}
	out := appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{Kind: "Deployment", APIVersion: appsv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(d.ObjectMeta, d.ResourceVersion),
		Spec: appsv1.DeploymentSpec{
			Replicas:                &replicas,
			Selector:                SelectorToAPI(d.Spec.Selector),
			Template:                podTemplateToAPI(d.Spec.Template),
			Strategy:                strategy,
			MinReadySeconds:         d.Spec.MinReadySeconds,
			RevisionHistoryLimit:    &history,
			Paused:                  d.Spec.Paused,
			ProgressDeadlineSeconds: &deadline,
		},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration:  d.Status.ObservedGeneration,
			Replicas:            d.Status.Replicas,
			UpdatedReplicas:     d.Status.UpdatedReplicas,
			ReadyReplicas:       d.Status.ReadyReplicas,
			AvailableReplicas:   d.Status.AvailableReplicas,
			UnavailableReplicas: d.Status.UnavailableReplicas,
		},
	}
	if d.Status.CollisionCount != 0 {
		c := d.Status.CollisionCount
		out.Status.CollisionCount = &c
	}
	for _, c := range d.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, appsv1.DeploymentCondition{
			Type: appsv1.DeploymentConditionType(c.Type), Status: corev1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
			LastUpdateTime: metav1.NewTime(c.LastUpdate), LastTransitionTime: metav1.NewTime(c.LastTransition),
		})
	}
	return out
}

// DeploymentFromAPI reads what a client sets on a Deployment — its
// labels, annotations and spec — with apps/v1's defaults: one replica,
// RollingUpdate with 25% surge and 25% unavailable, ten old revisions
// kept, a progress deadline of 600 s, and the pod defaults of its
// template. A body kube-apiserver would refuse is refused here too, with
// its field paths; the status is the reconciler's.
func DeploymentFromAPI(in appsv1.Deployment) (domain.CreateDeployment, error) {
	if err := ValidateDeployment(&in); err != nil {
		return domain.CreateDeployment{}, err
	}
	tmpl, err := podTemplateFromAPI("Deployment", in.Name, in.Spec.Template)
	if err != nil {
		return domain.CreateDeployment{}, err
	}
	spec := domain.DeploymentSpec{
		Replicas: defaultReplicas, Selector: SelectorFromAPI(in.Spec.Selector), Template: tmpl,
		MinReadySeconds: in.Spec.MinReadySeconds, Paused: in.Spec.Paused,
		RevisionHistoryLimit: defaultRevisionHistoryLimit, ProgressDeadlineSeconds: defaultProgressDeadlineSeconds,
		Strategy: domain.DeploymentStrategy{Type: string(in.Spec.Strategy.Type)},
	}
	if in.Spec.Replicas != nil {
		spec.Replicas = *in.Spec.Replicas
	}
	if in.Spec.RevisionHistoryLimit != nil {
		spec.RevisionHistoryLimit = *in.Spec.RevisionHistoryLimit
	}
	if in.Spec.ProgressDeadlineSeconds != nil {
		spec.ProgressDeadlineSeconds = *in.Spec.ProgressDeadlineSeconds
	}
	if spec.Strategy.Type == "" {
		spec.Strategy.Type = domain.RollingUpdateStrategy
	}
	if ru := in.Spec.Strategy.RollingUpdate; spec.Strategy.Type == domain.RollingUpdateStrategy {
		var surge, unavailable *intstr.IntOrString
		if ru != nil {
			surge, unavailable = ru.MaxSurge, ru.MaxUnavailable
		}
		path := field.NewPath("spec", "strategy", "rollingUpdate")
		var surgeErrs, unavailableErrs field.ErrorList
		spec.Strategy.MaxSurge, surgeErrs = IntOrPercentFromAPI(surge, path.Child("maxSurge"))
		spec.Strategy.MaxUnavailable, unavailableErrs = IntOrPercentFromAPI(unavailable, path.Child("maxUnavailable"))
		if err := invalidFrom("Deployment", in.Name, append(surgeErrs, unavailableErrs...)); err != nil {
			return domain.CreateDeployment{}, err
		}
		if spec.Strategy.MaxSurge == nil {
			spec.Strategy.MaxSurge = domain.Percents(25)
		}
		if spec.Strategy.MaxUnavailable == nil {
			spec.Strategy.MaxUnavailable = domain.Percents(25)
		}
	} else if ru != nil {
		// The domain refuses it, as kube-apiserver does.
		spec.Strategy.MaxSurge = domain.Ints(0)
	}
	return domain.CreateDeployment{Meta: objectMetaFromAPI(in.ObjectMeta), Spec: spec}, nil
}

// DeploymentStatusFromAPI reads the status a controller writes through
// deployments/NAME/status.
func DeploymentStatusFromAPI(in appsv1.DeploymentStatus) domain.DeploymentStatus {
	out := domain.DeploymentStatus{
		ObservedGeneration: in.ObservedGeneration, Replicas: in.Replicas, UpdatedReplicas: in.UpdatedReplicas,
		ReadyReplicas: in.ReadyReplicas, AvailableReplicas: in.AvailableReplicas, UnavailableReplicas: in.UnavailableReplicas,
	}
	if in.CollisionCount != nil {
		out.CollisionCount = *in.CollisionCount
	}
	for _, c := range in.Conditions {
		out.Conditions = append(out.Conditions, domain.WorkloadCondition{
			Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message,
			LastUpdate: c.LastUpdateTime.UTC(), LastTransition: c.LastTransitionTime.UTC(),
		})
	}
	return out
}

// DeploymentScaleToAPI is the Deployment's scale subresource
// (autoscaling/v1 Scale), as kubectl scale and autoscalers read it.
func DeploymentScaleToAPI(d domain.Deployment) autoscalingv1.Scale {
	return scaleToAPI(d.ObjectMeta, d.ResourceVersion, d.Spec.Replicas, d.Status.Replicas, d.Spec.Selector)
}

// ValidateDeployment checks a Deployment a client creates or replaces:
// its kind and apiVersion when set, its metadata, and its template's as a
// pod's are checked, whose restart policy can only be Always. Its
// selector, replicas and strategy are the domain's to check.
func ValidateDeployment(in *appsv1.Deployment) error {
	errs := validateTypeMeta(in.TypeMeta, "Deployment", appsv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	errs = append(errs, validateWorkloadTemplate(&in.Spec.Template)...)
	return invalidFrom("Deployment", in.Name, errs)
}

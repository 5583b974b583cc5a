package conversions

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
)

// AnnotationTemplateGeneration is where apps/v1 shows a DaemonSet's
// template generation (appsv1.DeprecatedTemplateGeneration): herd sets
// it, and ignores what a client sends in it, as kube-apiserver does.
const AnnotationTemplateGeneration = appsv1.DeprecatedTemplateGeneration

// defaultMaxUnavailable is apps/v1's default for a DaemonSet
// (SetDefaults_DaemonSet): a rolling update one node at a time, without
// surge; it keeps ten old revisions, as a Deployment does
// (defaultRevisionHistoryLimit).
const defaultMaxUnavailable int32 = 1

// DaemonSetToAPI renders a domain DaemonSet as an apps/v1 DaemonSet.
func DaemonSetToAPI(ds domain.DaemonSet) appsv1.DaemonSet {
	annotations := ds.Annotations
	if ds.TemplateGeneration > 0 {
		annotations = make(map[string]string, len(ds.Annotations)+1)
		for k, v := range ds.Annotations {
			annotations[k] = v
		}
		annotations[AnnotationTemplateGeneration] = strconv.FormatInt(ds.TemplateGeneration, 10)
	}
	limit := ds.Spec.RevisionHistoryLimit
	strategy := appsv1.DaemonSetUpdateStrategy{Type: appsv1.DaemonSetUpdateStrategyType(ds.Spec.UpdateStrategy.Type)}
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		strategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: IntOrPercentToAPI(&ru.MaxUnavailable), MaxSurge: IntOrPercentToAPI(&ru.MaxSurge)}
	}
	st := ds.Status
	out := appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{Kind: "DaemonSet", APIVersion: appsv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(ds.ObjectMeta, ds.ResourceVersion),
		Spec: appsv1.DaemonSetSpec{
			Selector:             SelectorToAPI(ds.Spec.Selector),
			Template:             podTemplateToAPI(ds.Spec.Template),
			UpdateStrategy:       strategy,
			MinReadySeconds:      ds.Spec.MinReadySeconds,
			RevisionHistoryLimit: &limit,
		},
		Status: appsv1.DaemonSetStatus{
			CurrentNumberScheduled: st.CurrentNumberScheduled,
			NumberMisscheduled:     st.NumberMisscheduled,
			DesiredNumberScheduled: st.DesiredNumberScheduled,
			NumberReady:            st.NumberReady,
			ObservedGeneration:     st.ObservedGeneration,
			UpdatedNumberScheduled: st.UpdatedNumberScheduled,
			NumberAvailable:        st.NumberAvailable,
			NumberUnavailable:      st.NumberUnavailable,
		},
	}
	out.Annotations = annotations
	return out
}

// DaemonSetFromAPI reads what a client sets on a DaemonSet — its labels,
// annotations, owners and spec — with apps/v1's defaults: a
// RollingUpdate of maxUnavailable 1 and maxSurge 0, a
// revisionHistoryLimit of 10, and the pod defaults of its template (a
// grace period of 30 s). A body kube-apiserver would refuse is refused
// here too, with its field paths, and so is a template with a required
// node affinity, which herd would not honour. Everything else in its
// metadata is herd's to decide and ignored; the status is the
// reconciler's (DaemonSetStatusFromAPI).
func DaemonSetFromAPI(in appsv1.DaemonSet) (domain.CreateDaemonSet, error) {
	strategy, errs := updateStrategyFromAPI(in.Spec.UpdateStrategy)
	errs = append(validateDaemonSet(&in), errs...)
	if err := invalidFrom("DaemonSet", in.Name, errs); err != nil {
		return domain.CreateDaemonSet{}, err
	}
	tmpl, err := podTemplateFromAPI("DaemonSet", in.Name, in.Spec.Template)
	if err != nil {
		return domain.CreateDaemonSet{}, err
	}
	limit := defaultRevisionHistoryLimit
	if in.Spec.RevisionHistoryLimit != nil {
		limit = *in.Spec.RevisionHistoryLimit
	}
	var annotations map[string]string
	for k, v := range in.Annotations {
		if k == AnnotationTemplateGeneration {
			continue
		}
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[k] = v
	}
	meta := objectMetaFromAPI(in.ObjectMeta)
	meta.Annotations = annotations
	return domain.CreateDaemonSet{
		Meta: meta,
		Spec: domain.DaemonSetSpec{
			Selector:             SelectorFromAPI(in.Spec.Selector),
			Template:             tmpl,
			UpdateStrategy:       strategy,
			MinReadySeconds:      in.Spec.MinReadySeconds,
			RevisionHistoryLimit: limit,
		},
	}, nil
}

// DaemonSetStatusFromAPI reads the status a controller writes through
// daemonsets/NAME/status.
func DaemonSetStatusFromAPI(in appsv1.DaemonSetStatus) domain.DaemonSetStatus {
	return domain.DaemonSetStatus{
		CurrentNumberScheduled: in.CurrentNumberScheduled, NumberMisscheduled: in.NumberMisscheduled,
		DesiredNumberScheduled: in.DesiredNumberScheduled, NumberReady: in.NumberReady,
		ObservedGeneration: in.ObservedGeneration, UpdatedNumberScheduled: in.UpdatedNumberScheduled,
		NumberAvailable: in.NumberAvailable, NumberUnavailable: in.NumberUnavailable,
	}
}

// validateDaemonSet checks a DaemonSet a client creates or replaces as
// kube-apiserver does in the fields herd reads: its kind and apiVersion
// when set, its metadata, and its template's as a pod's are checked,
// whose restart policy can only be Always and which may set no active
// deadline (a DaemonSet keeps its pods running). A required node affinity
// is refused: herd's pods have none, so the DaemonSet would put its pods
// on nodes the affinity keeps out; the node selector says the same for
// the common cases. Its selector and counts are the domain's to check.
func validateDaemonSet(in *appsv1.DaemonSet) field.ErrorList {
	errs := validateTypeMeta(in.TypeMeta, "DaemonSet", appsv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	tmpl := field.NewPath("spec", "template", "spec")
	spec := &in.Spec.Template.Spec
	errs = append(errs, validatePodSpec(spec, tmpl)...)
	if p := spec.RestartPolicy; p != "" && p != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(tmpl.Child("restartPolicy"), p, []string{string(corev1.RestartPolicyAlways)}))
	}
	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(tmpl.Child("activeDeadlineSeconds"), *spec.ActiveDeadlineSeconds, "activeDeadlineSeconds in DaemonSet is not Supported"))
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		errs = append(errs, field.Forbidden(tmpl.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"),
			"herd does not place pods by node affinity; choose the DaemonSet's nodes with spec.template.spec.nodeSelector (herd.dev/kind, kubernetes.io/os or your own labels)"))
	}
	return errs
}

// updateStrategyFromAPI reads a DaemonSet's update strategy with apps/v1's
// defaults, refusing bounds that are neither a count nor a percentage.
func updateStrategyFromAPI(in appsv1.DaemonSetUpdateStrategy) (domain.DaemonSetUpdateStrategy, field.ErrorList) {
	out := domain.DaemonSetUpdateStrategy{Type: string(in.Type)}
	if out.Type == "" {
		out.Type = domain.DaemonSetRollingUpdate
	}
	if out.Type != domain.DaemonSetRollingUpdate {
		return out, nil
	}
	ru := &domain.RollingUpdateDaemonSet{MaxUnavailable: domain.IntOrPercent{Value: defaultMaxUnavailable}}
	path := field.NewPath("spec", "updateStrategy", "rollingUpdate")
	var errs field.ErrorList
	if in.RollingUpdate != nil {
		unavailable, unavailableErrs := IntOrPercentFromAPI(in.RollingUpdate.MaxUnavailable, path.Child("maxUnavailable"))
		surge, surgeErrs := IntOrPercentFromAPI(in.RollingUpdate.MaxSurge, path.Child("maxSurge"))
		errs = append(append(errs, unavailableErrs...), surgeErrs...)
		if unavailable != nil {
			ru.MaxUnavailable = *unavailable
		}
		if surge != nil {
			ru.MaxSurge = *surge
		}
	}
	out.RollingUpdate = ru
	return out, errs
}

package conversions

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// jobControllerName is the one spec.managedBy herd takes: Kubernetes'
// own Job controller, whose part herd's job reconciler plays.
const jobControllerName = "kubernetes.io/job-controller"

// ValidateJob checks a Job a client creates or replaces: its kind and
// apiVersion when set, its metadata, and its template's as a pod's are
// checked. What batch/v1 offers and herd does not run is refused by
// name rather than ignored:
// per-index backoff, another controller, and the replacement of pods
// only once they have failed. Its counts, mode, selector and restart
// policy are the domain's to check.
func ValidateJob(in *batchv1.Job) error {
	errs := validateTypeMeta(in.TypeMeta, "Job", batchv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	spec := field.NewPath("spec")
	errs = append(errs, validatePodSpec(&in.Spec.Template.Spec, spec.Child("template", "spec"))...)
	refuse := func(set bool, name, why string) {
		if set {
			errs = append(errs, field.Forbidden(spec.Child(name), why))
		}
	}
	refuse(in.Spec.BackoffLimitPerIndex != nil, "backoffLimitPerIndex", "herd counts an Indexed Job's failures against its backoffLimit, with no per-index backoff")
	refuse(in.Spec.MaxFailedIndexes != nil, "maxFailedIndexes", "herd has no per-index backoff, and so no failed indexes")
	if m := in.Spec.ManagedBy; m != nil && *m != jobControllerName {
		errs = append(errs, field.NotSupported(spec.Child("managedBy"), *m, []string{jobControllerName}))
	}
	if p := in.Spec.PodReplacementPolicy; p != nil && *p != batchv1.TerminatingOrFailed {
		errs = append(errs, field.NotSupported(spec.Child("podReplacementPolicy"), *p, []string{string(batchv1.TerminatingOrFailed)}))
	}
	return invalidFrom("Job", in.Name, errs)
}

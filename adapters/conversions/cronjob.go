package conversions

import (
	"errors"
	"strings"
	"time"
	_ "time/tzdata" // the zone database in the binary: a CronJob's zone does not depend on the host's files

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
)

// batch/v1's defaults for a CronJob's history (SetDefaults_CronJob).
const (
	defaultSuccessfulJobsHistory int32 = 3
	defaultFailedJobsHistory     int32 = 1
)

// CronJobToAPI renders a domain CronJob as a batch/v1 CronJob.
func CronJobToAPI(c domain.CronJob) batchv1.CronJob {
	policy := batchv1.ConcurrencyPolicy(c.Spec.ConcurrencyPolicy)
	successful, failed, suspend := c.Spec.SuccessfulJobsHistoryLimit, c.Spec.FailedJobsHistoryLimit, c.Spec.Suspend
	tmpl := JobToAPI(domain.Job{Object: domain.Object[domain.JobSpec, domain.JobStatus]{Spec: c.Spec.JobTemplate.Spec}})
	tmpl.Spec.Selector = nil
	out := batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{Kind: "CronJob", APIVersion: batchv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(c.ObjectMeta, c.ResourceVersion),
		Spec: batchv1.CronJobSpec{
			Schedule: c.Spec.Schedule, TimeZone: c.Spec.TimeZone, StartingDeadlineSeconds: c.Spec.StartingDeadlineSeconds,
			ConcurrencyPolicy: policy, Suspend: &suspend,
			SuccessfulJobsHistoryLimit: &successful, FailedJobsHistoryLimit: &failed,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: c.Spec.JobTemplate.Labels, Annotations: c.Spec.JobTemplate.Annotations},
				Spec:       tmpl.Spec,
			},
		},
	}
	for _, a := range c.Status.Active {
		out.Status.Active = append(out.Status.Active, corev1.ObjectReference{
			Kind: "Job", APIVersion: batchv1.SchemeGroupVersion.String(), Namespace: c.Namespace, Name: a.Name, UID: types.UID(a.UID),
		})
	}
	out.Status.LastScheduleTime, out.Status.LastSuccessfulTime = optionalTimeToAPI(c.Status.LastScheduleTime), optionalTimeToAPI(c.Status.LastSuccessfulTime)
	return out
}

// CronJobFromAPI reads what a client sets on a CronJob — its labels,
// annotations, owners and spec — with batch/v1's defaults (concurrency
// Allow, 3 successful and 1 failed Jobs kept) and its Job template read
// as a Job's is (JobFromAPI). A schedule that robfig/cron's standard
// parser, which Kubernetes' CronJob controller uses, cannot read, and a
// time zone that is not in the zone database, are refused here naming
// the field, as kube-apiserver does; the domain refuses the rest.
func CronJobFromAPI(in batchv1.CronJob) (domain.CreateCronJob, error) {
	errs := validateTypeMeta(in.TypeMeta, "CronJob", batchv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	spec := field.NewPath("spec")
	if s := in.Spec.Schedule; s != "" && !strings.Contains(s, "TZ") {
		if _, err := cron.ParseStandard(s); err != nil {
			errs = append(errs, field.Invalid(spec.Child("schedule"), s, err.Error()))
		}
	}
	if tz := in.Spec.TimeZone; tz != nil && *tz != "" && !strings.EqualFold(*tz, "Local") {
		if _, err := time.LoadLocation(*tz); err != nil {
			errs = append(errs, field.Invalid(spec.Child("timeZone"), *tz, err.Error()))
		}
	}
	var fields []domain.FieldError
	var inv *domain.InvalidError
	if errors.As(invalidFrom("CronJob", in.Name, errs), &inv) {
		fields = inv.Fields
	}
	tmpl := in.Spec.JobTemplate
	job, err := JobFromAPI(batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: in.Name}, Spec: tmpl.Spec})
	if errors.As(err, &inv) {
		for _, f := range inv.Fields {
			f.Field = "spec.jobTemplate." + f.Field
			fields = append(fields, f)
		}
	} else if err != nil {
		return domain.CreateCronJob{}, err
	}
	if len(fields) > 0 {
		return domain.CreateCronJob{}, &domain.InvalidError{Kind: "CronJob", Name: in.Name, Fields: fields}
	}
	out := domain.CreateCronJob{
		Meta: objectMetaFromAPI(in.ObjectMeta),
		Spec: domain.CronJobSpec{
			Schedule: in.Spec.Schedule, TimeZone: in.Spec.TimeZone, StartingDeadlineSeconds: in.Spec.StartingDeadlineSeconds,
			ConcurrencyPolicy: string(in.Spec.ConcurrencyPolicy), Suspend: in.Spec.Suspend != nil && *in.Spec.Suspend,
			SuccessfulJobsHistoryLimit: defaultSuccessfulJobsHistory, FailedJobsHistoryLimit: defaultFailedJobsHistory,
			JobTemplate: domain.JobTemplate{Labels: tmpl.Labels, Annotations: tmpl.Annotations, Spec: job.Spec},
		},
	}
	if out.Spec.ConcurrencyPolicy == "" {
		out.Spec.ConcurrencyPolicy = domain.CronJobAllow
	}
	if n := in.Spec.SuccessfulJobsHistoryLimit; n != nil {
		out.Spec.SuccessfulJobsHistoryLimit = *n
	}
	if n := in.Spec.FailedJobsHistoryLimit; n != nil {
		out.Spec.FailedJobsHistoryLimit = *n
	}
	return out, nil
}

// CronJobStatusFromAPI reads the status a controller writes through
// cronjobs/NAME/status.
func CronJobStatusFromAPI(in batchv1.CronJobStatus) domain.CronJobStatus {
	var out domain.CronJobStatus
	for _, a := range in.Active {
		out.Active = append(out.Active, domain.CronJobActiveJob{Name: a.Name, UID: string(a.UID)})
	}
	out.LastScheduleTime, out.LastSuccessfulTime = optionalTimeFromAPI(in.LastScheduleTime), optionalTimeFromAPI(in.LastSuccessfulTime)
	return out
}

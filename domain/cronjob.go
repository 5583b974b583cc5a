package domain

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// CronJob is the CronJob aggregate (batch/v1): a Job made from
// JobTemplate at each time of Schedule, by herd's clock. The cronjob
// reconciler makes the Jobs and keeps the status. It is a kind on the
// object model (see Object): a change of its spec is a new generation.
type CronJob = Object[CronJobSpec, CronJobStatus]

// CronJobSpec is what a CronJob asks for.
type CronJobSpec struct {
	// Schedule is in the standard cron syntax (five fields, or a
	// descriptor such as @hourly), as Kubernetes parses it.
	Schedule string `json:"schedule"`
	// TimeZone is the IANA time zone Schedule is read in; nil for
	// herd's clock's own (UTC).
	TimeZone *string `json:"timeZone,omitempty"`
	// ConcurrencyPolicy says what a run does while an earlier one is
	// active: CronJobAllow, CronJobForbid or CronJobReplace.
	ConcurrencyPolicy string `json:"concurrencyPolicy"`
	// StartingDeadlineSeconds is how late a run may still start; nil
	// for no bound.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`
	// Suspend stops new runs; the active ones go on.
	Suspend bool `json:"suspend,omitempty"`
	// SuccessfulJobsHistoryLimit and FailedJobsHistoryLimit are how many
	// finished Jobs of each outcome are kept (batch/v1's defaults are 3
	// and 1); the oldest beyond go.
	SuccessfulJobsHistoryLimit int32       `json:"successfulJobsHistoryLimit"`
	FailedJobsHistoryLimit     int32       `json:"failedJobsHistoryLimit"`
	JobTemplate                JobTemplate `json:"jobTemplate"`
}

// JobTemplate is what each Job of a CronJob is made from: its labels and
// annotations, and its spec, whose selector herd generates per Job.
type JobTemplate struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        JobSpec           `json:"spec"`
}

// CronJobStatus is what the reconciler last recorded of a CronJob's runs.
type CronJobStatus struct {
	// Active are the Jobs of the CronJob that run.
	Active []CronJobActiveJob `json:"active,omitempty"`
	// LastScheduleTime is the scheduled time of the newest run made;
	// LastSuccessfulTime when the newest Job to succeed completed.
	LastScheduleTime   *time.Time `json:"lastScheduleTime,omitempty"`
	LastSuccessfulTime *time.Time `json:"lastSuccessfulTime,omitempty"`
}

// CronJobActiveJob names one active Job of a CronJob (in its namespace).
type CronJobActiveJob struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// The concurrency policies, as batch/v1 spells them.
const (
	CronJobAllow   = "Allow"
	CronJobForbid  = "Forbid"
	CronJobReplace = "Replace"
)

// CronJobScheduledAnnotation is the annotation a CronJob's Job carries
// with the time it was scheduled for, as Kubernetes' controller sets it.
const CronJobScheduledAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"

// cronJobMaxNameLength bounds a CronJob's name: its Jobs' names add an
// 11-character suffix ("-" and the scheduled minutes) and must fit the
// 63 characters of a label value.
const cronJobMaxNameLength = 52

// The CronJob's events.
type (
	// CronJobCreated records a CronJob's creation.
	CronJobCreated = ObjectCreated[CronJobSpec, CronJobStatus]
	// CronJobChanged records a new spec, with the labels and annotations
	// beside it.
	CronJobChanged = ObjectUpdated[CronJobSpec, CronJobStatus]
	// CronJobMetadataChanged records new labels or annotations alone:
	// the spec and generation stay as they were.
	CronJobMetadataChanged = ObjectMetadataChanged[CronJobSpec, CronJobStatus]
	// CronJobStatusRecorded records the reconciler's status of the runs.
	CronJobStatusRecorded = ObjectStatusRecorded[CronJobSpec, CronJobStatus]
	// CronJobDeletionRequested records a deletion in the foreground: the
	// CronJob stays, being deleted, until its Jobs are gone.
	CronJobDeletionRequested = ObjectDeletionRequested[CronJobSpec, CronJobStatus]
	// CronJobDeleted records a CronJob's deletion; the garbage collector
	// deletes its Jobs after it or, with Orphan, takes their reference to
	// it off.
	CronJobDeleted = ObjectDeleted[CronJobSpec, CronJobStatus]
	// CronJobOwnersChanged records the CronJob's new owner references:
	// given by an update, or one taken off when its owner was deleted
	// with its dependents orphaned.
	CronJobOwnersChanged = ObjectOwnersChanged[CronJobSpec, CronJobStatus]
)

// CronJobWarned records a warning the reconciler gave about a CronJob's
// schedule, as Kubernetes' controller records a Warning event:
// TooManyMissedTimes (more than 100 runs missed; only the latest is
// made) or MissSchedule (the latest run is past its starting deadline).
// It is the CronJob's own event beside the object model's; it changes
// nothing of the CronJob but its version.
type CronJobWarned struct {
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// EventType implements Event.
func (CronJobWarned) EventType() string { return "CronJobWarned" }

// The reasons of CronJobWarned, in Kubernetes' controller's words.
const (
	CronJobTooManyMissedTimes = "TooManyMissedTimes"
	CronJobMissSchedule       = "MissSchedule"
)

// cronJobKind is what is the CronJob's own on the object model.
var cronJobKind = &ObjectKind[CronJobSpec, CronJobStatus]{
	Kind: "CronJob", Resource: "cronjobs.batch",
	Created: "CronJobCreated", Updated: "CronJobChanged", Deleted: "CronJobDeleted",
	MetadataChanged: "CronJobMetadataChanged",
	StatusRecorded:  "CronJobStatusRecorded", DeletionRequested: "CronJobDeletionRequested",
	OwnersChanged: "CronJobOwnersChanged",
	APIVersion:    "batch/v1", OwnsDependents: true, UpdateReplacesOwners: true,
	Layout: workloadLayout,
	Strategy: Strategy[CronJobSpec, CronJobStatus]{
		PrepareForCreate: func(_ *ObjectMeta, s *CronJobSpec) {
			if s.ConcurrencyPolicy == "" {
				s.ConcurrencyPolicy = CronJobAllow
			}
		},
		Validate:                  cronJobProblems,
		SpecChangeBumpsGeneration: true,
	},
}

func (CronJobSpec) objectKind() *ObjectKind[CronJobSpec, CronJobStatus] { return cronJobKind }

// CronJobAggregate is the CronJob in the log: streams
// "cronjob/NAMESPACE/NAME", of the model's events and CronJobWarned,
// which counts only in its version (EvolveObject).
var CronJobAggregate = defineObjectAggregate[CronJobSpec, CronJobStatus]("cronjob", eventOf[CronJobWarned](1))

// The CronJob's commands: the object model's, and WarnCronJob.
type (
	// CronJobCommand is a command on one CronJob.
	CronJobCommand = ObjectCommand[CronJobSpec, CronJobStatus]
	// CreateCronJob creates a CronJob, as kubectl create cronjob does.
	CreateCronJob = Create[CronJobSpec, CronJobStatus]
	// UpdateCronJob makes a CronJob's labels, annotations and spec those
	// given (batch/v1 lets every field of the spec change).
	UpdateCronJob = Update[CronJobSpec, CronJobStatus]
	// RecordCronJobStatus records the status of a CronJob's runs.
	RecordCronJobStatus = RecordStatus[CronJobSpec, CronJobStatus]
	// DeleteCronJob deletes a CronJob, its Jobs following as Propagation
	// says.
	DeleteCronJob = Delete[CronJobSpec, CronJobStatus]
)

// WarnCronJob records a warning about a CronJob's schedule
// (CronJobWarned).
type WarnCronJob struct {
	Reason, Message string
}

func (c WarnCronJob) decideObject(s subject[CronJobCommand], now time.Time) ([]Event, error) {
	if err := requireObject(modelOf(s)); err != nil {
		return nil, err
	}
	return []Event{CronJobWarned{Reason: c.Reason, Message: c.Message, At: now}}, nil
}

// validTimeZonePart is kube-apiserver's rule for each part of a time
// zone's name (IANA's naming, with digits and '+' for legacy names).
var validTimeZonePart = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// cronJobProblems checks a CronJob as kube-apiserver's CronJob strategy
// does, but for what needs more than the domain may do: that the
// schedule parses and the time zone is in the zone database are checked
// where the API reads the CronJob (adapters/conversions), with the
// parser Kubernetes' controller uses.
func cronJobProblems(meta ObjectMeta, s CronJobSpec) []FieldError {
	var errs []FieldError
	if len(meta.Name) > cronJobMaxNameLength {
		errs = append(errs, FieldError{Field: "metadata.name", Value: meta.Name, Reason: "must be no more than 52 characters"})
	}
	switch {
	case s.Schedule == "":
		errs = append(errs, FieldError{Field: "spec.schedule", Reason: "Required value"})
	case strings.Contains(s.Schedule, "TZ"):
		errs = append(errs, FieldError{Field: "spec.schedule", Value: s.Schedule, Reason: "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"})
	}
	if tz := s.TimeZone; tz != nil {
		errs = append(errs, timeZoneProblems(*tz)...)
	}
	if d := s.StartingDeadlineSeconds; d != nil {
		errs = nonNegative(errs, "spec.startingDeadlineSeconds", *d)
	}
	switch s.ConcurrencyPolicy {
	case CronJobAllow, CronJobForbid, CronJobReplace:
	case "":
		errs = append(errs, FieldError{Field: "spec.concurrencyPolicy", Reason: "Required value"})
	default:
		errs = append(errs, FieldError{Field: "spec.concurrencyPolicy",
			Reason: fmt.Sprintf(`Unsupported value: %q: supported values: "Allow", "Forbid", "Replace"`, s.ConcurrencyPolicy)})
	}
	errs = nonNegative(errs, "spec.successfulJobsHistoryLimit", s.SuccessfulJobsHistoryLimit)
	errs = nonNegative(errs, "spec.failedJobsHistoryLimit", s.FailedJobsHistoryLimit)
	return append(errs, jobTemplateProblems(s.JobTemplate)...)
}

// timeZoneProblems checks a time zone's name as kube-apiserver does
// before it looks the zone up: not empty, parts of IANA's characters,
// and not "Local", which would be the server's own.
func timeZoneProblems(tz string) []FieldError {
	field := "spec.timeZone"
	if tz == "" {
		return []FieldError{{Field: field, Value: tz, Reason: "timeZone must be nil or non-empty string"}}
	}
	for _, part := range strings.Split(tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZonePart.MatchString(part) {
			return []FieldError{{Field: field, Value: tz, Reason: "unknown time zone " + tz}}
		}
	}
	if strings.EqualFold(tz, "Local") {
		return []FieldError{{Field: field, Value: tz, Reason: "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"}}
	}
	return nil
}

// jobTemplateProblems checks a CronJob's Job template as batch/v1's
// ValidateJobTemplateSpec does: a Job's spec whose selector herd will
// generate, so none may be given.
func jobTemplateProblems(t JobTemplate) []FieldError {
	var errs []FieldError
	if !t.Spec.Selector.Empty() {
		errs = append(errs, FieldError{Field: "spec.jobTemplate.spec.selector", Reason: "Invalid value: `selector` will be auto-generated"})
	}
	if t.Spec.ManualSelector {
		errs = append(errs, FieldError{Field: "spec.jobTemplate.spec.manualSelector", Reason: `Unsupported value: true: supported values: "nil", "false"`})
	}
	for _, e := range metadataProblems(t.Labels, t.Annotations) {
		e.Field = "spec.jobTemplate." + e.Field
		errs = append(errs, e)
	}
	spec := t.Spec
	if spec.CompletionMode == "" {
		spec.CompletionMode = JobNonIndexed
	}
	// Checked as each Job will be, with the selector generated for it.
	spec.Selector = LabelSelector{}
	spec = generateJobSelector(spec, "cronjob", "cronjob")
	for _, e := range jobSpecProblems(spec) {
		e.Field = "spec.jobTemplate." + e.Field
		errs = append(errs, e)
	}
	return errs
}

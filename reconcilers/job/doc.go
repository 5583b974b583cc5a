// Package job is the Job reconciler, in the manner of Kubernetes' Job
// controller (pkg/controller/job) for NonIndexed Jobs: for each Job it
// runs pods made from the template, Parallelism at a time, until
// Completions of them have succeeded; it counts each finished pod once
// (by its UID, in the Job's own events, where Kubernetes holds the pod
// back with a finalizer), fails the Job once more pods failed than its
// backoffLimit allows or it ran past activeDeadlineSeconds, deletes what
// still runs then, and marks it Complete or Failed once its pods have
// stopped, after SuccessCriteriaMet or FailureTarget as Kubernetes 1.31
// does. A finished Job with ttlSecondsAfterFinished is deleted that long
// after it finished, and the pods of a Job that is gone are deleted, as
// the garbage collector deletes them.
//
// It reads the Jobs and the pods of one namespace at a time through the
// small interfaces it declares, and writes only through domain commands.
// It must not import the adapters or cmd.
package job

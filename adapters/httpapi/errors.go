package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
	"herd/events"
	"herd/projections/watch"
)

// unavailableRetryAfter is the Retry-After, in seconds, of an answer
// while the database cannot be reached: a standby's promotion takes a
// few seconds.
const unavailableRetryAfter = 2

// requestError is an error the API layer found before any command ran:
// the request itself is malformed.
type requestError struct {
	code   int
	reason metav1.StatusReason
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf(format, args...)}
}

// statusFor maps an error to the HTTP status and Kubernetes Status body the
// client sees. It is the only place where herd's errors meet HTTP.
func statusFor(err error, kind, name string) metav1.Status {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  err.Error(),
		Details:  &metav1.StatusDetails{Name: name, Kind: resourceName(kind)},
	}
	var (
		reqErr    *requestError
		invalid   *domain.InvalidError
		maxErr    *http.MaxBytesError
		apiStatus apierrors.APIStatus
		contErr   *continueExpiredError
		tooLarge  *watch.TooLargeError
	)
	switch {
	case errors.As(err, &apiStatus):
		st = apiStatus.Status()
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	case errors.As(err, &contErr):
		st.Code, st.Reason = http.StatusGone, metav1.StatusReasonExpired
		st.Message = continueExpiredMessage
		st.Continue = contErr.next
	case errors.Is(err, watch.ErrExpired), errors.Is(err, watch.ErrTooSlow):
		st.Code, st.Reason = http.StatusGone, metav1.StatusReasonExpired
	case errors.As(err, &tooLarge):
		// What kube-apiserver answers, and client-go's reflectors
		// recognise by the cause: start again from a fresh list.
		st.Code, st.Reason = http.StatusGatewayTimeout, metav1.StatusReasonTimeout
		st.Details.RetryAfterSeconds = 1
		st.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	case errors.Is(err, context.DeadlineExceeded):
		// A read past its deadline (read_share.go), cancelled in the
		// database: kube-apiserver's answer to a request that outlives
		// its timeout.
		st.Code, st.Reason = http.StatusGatewayTimeout, metav1.StatusReasonTimeout
		st.Message = "the request did not complete within its deadline; narrow it (a shorter window, a smaller limit) or retry: " + err.Error()
		st.Details.RetryAfterSeconds = expensiveReadRetryAfter
	case errors.Is(err, watch.ErrClosed), errors.Is(err, watch.ErrNotStarted):
		st.Code, st.Reason = http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable
	case errors.As(err, &reqErr):
		st.Code, st.Reason = int32(reqErr.code), reqErr.reason
	case errors.As(err, &maxErr):
		st.Code, st.Reason = http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge
		st.Message = fmt.Sprintf("request body too large: the limit is %d bytes", maxErr.Limit)
	case errors.As(err, &invalid):
		// As kube-apiserver's NewInvalid: the details name the kind, not
		// the resource.
		st.Code, st.Reason = http.StatusUnprocessableEntity, metav1.StatusReasonInvalid
		st.Details.Kind = invalid.Kind
		for _, f := range invalid.Fields {
			msg := f.Reason
			if f.Value != "" {
				msg = fmt.Sprintf("Invalid value: %q: %s", f.Value, f.Reason)
			}
			st.Details.Causes = append(st.Details.Causes, metav1.StatusCause{
				Type: causeType(msg), Message: msg, Field: f.Field,
			})
		}
	case errors.Is(err, domain.ErrNotFound):
		st.Code, st.Reason = http.StatusNotFound, metav1.StatusReasonNotFound
		if name != "" {
			st.Message = fmt.Sprintf("%ss %q not found", lower(kind), name)
		}
	case errors.Is(err, domain.ErrAlreadyExists):
		st.Code, st.Reason = http.StatusConflict, metav1.StatusReasonAlreadyExists
		st.Message = fmt.Sprintf("%ss %q already exists", lower(kind), name)
	case errors.Is(err, domain.ErrConflict):
		st.Code, st.Reason = http.StatusConflict, metav1.StatusReasonConflict
	case errors.Is(err, domain.ErrForbidden):
		st.Code, st.Reason = http.StatusForbidden, metav1.StatusReasonForbidden
		addNamespaceCause(&st, err)
	case events.Unavailable(err):
		// No database primary answers: retry shortly, perhaps on
		// another replica. A write was not acknowledged, whether or not
		// it reached the database before the connection broke.
		st.Code, st.Reason = http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable
		st.Message = "the database cannot be reached: " + err.Error()
		st.Details.RetryAfterSeconds = unavailableRetryAfter
	default:
		st.Code, st.Reason = http.StatusInternalServerError, metav1.StatusReasonInternalError
		st.Message = "internal error: " + err.Error()
	}
	return st
}

// addNamespaceCause gives a create refused in a namespace being deleted
// the cause NamespaceLifecycle admission gives it: controllers built on
// client-go look for it and make nothing more there.
func addNamespaceCause(st *metav1.Status, err error) {
	var terminating *domain.NamespaceTerminatingError
	if !errors.As(err, &terminating) {
		return
	}
	if st.Details == nil {
		st.Details = &metav1.StatusDetails{}
	}
	st.Details.Causes = append(st.Details.Causes, metav1.StatusCause{Type: corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", terminating.Namespace), Field: "metadata.namespace"})
}

// causeTypes are the kinds of field error whose message starts with
// their name (apimachinery's field.Error), most specific first.
var causeTypes = []field.ErrorType{
	field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeDuplicate,
	field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeNotFound,
}

// causeType is the cause type of a field error by its message, as
// kube-apiserver gives it: FieldValueNotSupported for "Unsupported value:
// ...", FieldValueRequired for "Required value" (or herd's "required"),
// and FieldValueInvalid for the rest.
func causeType(msg string) metav1.CauseType {
	if msg == "required" {
		return metav1.CauseTypeFieldValueRequired
	}
	for _, t := range causeTypes {
		if strings.HasPrefix(msg, t.String()) {
			return metav1.CauseType(t)
		}
	}
	return metav1.CauseTypeFieldValueInvalid
}

// resourceName is the plural resource of a kind, which kube-apiserver puts
// in Status details.
func resourceName(kind string) string {
	if kind == "" {
		return ""
	}
	return lower(kind) + "s"
}

// lower is a kind as its resource name starts: "ConfigMap" is
// "configmap", as in `configmaps "x" not found`.
func lower(kind string) string {
	if kind == "" {
		return "object"
	}
	return strings.ToLower(kind)
}

// successStatus is the Status a delete or a subresource POST answers with.
func successStatus(resource, name string) metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: name, Kind: resource},
	}
}

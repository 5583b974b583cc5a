package kubelet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// Reasons a poll fails, as recorded on the node, in the scrape error
// metric and in logs.
const (
	ReasonConnectionRefused = "ConnectionRefused"
	ReasonTimeout           = "Timeout"
	ReasonTLSError          = "TLSError"
	ReasonDNSError          = "DNSError"
	ReasonUnreachable       = "Unreachable"
	ReasonUnauthorized      = "Unauthorized"
	ReasonForbidden         = "Forbidden"
	ReasonUnhealthy         = "Unhealthy"
	ReasonHTTPError         = "HTTPError"
	ReasonMalformed         = "MalformedResponse"
	ReasonTooLarge          = "ResponseTooLarge"
	ReasonConfigError       = "ConfigError"
	ReasonPanic             = "Panic"
)

// Failure is one failed request to a kubelet, in an operator's words.
type Failure struct {
	// Endpoint is the path polled, such as /stats/summary.
	Endpoint string
	// Reason is one of the Reason* constants.
	Reason string
	// Message says what happened and, where herd can tell, what to do.
	Message string
}

func (f *Failure) Error() string { return fmt.Sprintf("%s %s: %s", f.Endpoint, f.Reason, f.Message) }

// connectionLevel reports whether the failure says the kubelet cannot be
// talked to at all, rather than that one endpoint answered badly.
func (f *Failure) connectionLevel() bool {
	switch f.Reason {
	case ReasonConnectionRefused, ReasonTimeout, ReasonTLSError, ReasonDNSError, ReasonUnreachable, ReasonConfigError:
		return true
	}
	return false
}

// errRequestTimeout is the cause a request is cancelled with when its
// timeout passes on herd's clock.
var errRequestTimeout = errors.New("request timed out")

// transportFailure classifies an error from the HTTP client. auth says
// what credentials the target uses, for TLS messages.
func transportFailure(ctx context.Context, endpoint string, err error, auth string) *Failure {
	f := &Failure{Endpoint: endpoint, Message: err.Error()}
	var (
		unknownCA   x509.UnknownAuthorityError
		hostname    x509.HostnameError
		invalidCert x509.CertificateInvalidError
		notTLS      tls.RecordHeaderError
		alert       tls.AlertError
		verify      *tls.CertificateVerificationError
		dnsErr      *net.DNSError
		netErr      net.Error
	)
	switch {
	case errors.Is(context.Cause(ctx), errRequestTimeout):
		f.Reason, f.Message = ReasonTimeout, "the kubelet did not answer within the request timeout (--kubelet-timeout)"
	case errors.Is(err, syscall.ECONNREFUSED):
		f.Reason, f.Message = ReasonConnectionRefused, "connection refused: nothing listens at the kubelet's address; is the kubelet running, and is the port right?"
	case errors.As(err, &unknownCA):
		f.Reason, f.Message = ReasonTLSError, "the kubelet's serving certificate is signed by an authority herd does not trust: give the target the CA bundle that signs it (caFile or caData)"
	case errors.As(err, &hostname):
		f.Reason, f.Message = ReasonTLSError, fmt.Sprintf("the kubelet's serving certificate is not valid for the target's host: %v", hostname)
	case errors.As(err, &invalidCert):
		f.Reason, f.Message = ReasonTLSError, fmt.Sprintf("the kubelet's serving certificate is not valid: %v", invalidCert)
	case errors.As(err, &verify):
		f.Reason, f.Message = ReasonTLSError, fmt.Sprintf("the kubelet's serving certificate does not verify: %v", verify.Err)
	case errors.As(err, &notTLS), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		f.Reason, f.Message = ReasonTLSError, "the kubelet does not speak TLS on this port: use an http:// URL for its read-only port"
	case errors.As(err, &alert):
		f.Reason, f.Message = ReasonTLSError, fmt.Sprintf("the kubelet broke off the TLS handshake (%v): it does not accept herd's %s", alert, auth)
	case strings.Contains(err.Error(), "remote error: tls: "):
		// The kubelet's alert, such as "certificate required" or "bad
		// certificate": it refuses what herd presented, or that it
		// presented nothing.
		_, said, _ := strings.Cut(err.Error(), "remote error: tls: ")
		f.Reason, f.Message = ReasonTLSError, fmt.Sprintf("the kubelet broke off the TLS handshake (%s): it does not accept herd's %s", said, auth)
	case strings.Contains(err.Error(), "tls: "):
		f.Reason, f.Message = ReasonTLSError, fmt.Sprintf("TLS handshake failed: %v", err)
	case errors.As(err, &dnsErr):
		f.Reason, f.Message = ReasonDNSError, fmt.Sprintf("the kubelet's host name does not resolve: %v", dnsErr)
	case errors.As(err, &netErr) && netErr.Timeout():
		f.Reason, f.Message = ReasonTimeout, fmt.Sprintf("the kubelet did not answer in time: %v", err)
	default:
		f.Reason = ReasonUnreachable
	}
	return f
}

// statusFailure describes a response other than 200 OK. body is the start
// of what the kubelet said, which for 401 and 403 names the user and the
// permission it lacks.
func statusFailure(endpoint string, code int, body []byte, auth string) *Failure {
	said := strings.TrimSpace(string(body))
	if len(said) > 300 {
		said = said[:300] + "…"
	}
	f := &Failure{Endpoint: endpoint}
	switch {
	case code == http.StatusUnauthorized:
		f.Reason = ReasonUnauthorized
		f.Message = fmt.Sprintf("the kubelet does not accept herd's credentials (401 Unauthorized; herd sent %s): check that the token or certificate is current and issued for this cluster", auth)
	case code == http.StatusForbidden:
		f.Reason = ReasonForbidden
		f.Message = fmt.Sprintf("the kubelet knows herd's identity but forbids %s (403 Forbidden): grant it get on %s", endpoint, kubeletResource(endpoint))
	case strings.HasPrefix(endpoint, "/healthz") && code >= 500:
		f.Reason = ReasonUnhealthy
		f.Message = fmt.Sprintf("the kubelet reports itself unhealthy (%d)", code)
	default:
		f.Reason = ReasonHTTPError
		f.Message = fmt.Sprintf("the kubelet answered %d %s", code, http.StatusText(code))
	}
	if said != "" {
		f.Message += "; it said: " + said
	}
	return f
}

// kubeletResource is the node subresource the kubelet's authorizer checks
// for a path (the kubelet's auth.go): nodes/stats, nodes/metrics,
// nodes/spec, else nodes/proxy.
func kubeletResource(endpoint string) string {
	switch {
	case strings.HasPrefix(endpoint, "/stats"):
		return "nodes/stats"
	case strings.HasPrefix(endpoint, "/metrics"):
		return "nodes/metrics"
	case strings.HasPrefix(endpoint, "/spec"):
		return "nodes/spec"
	}
	return "nodes/proxy"
}

package httpapi

import (
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

// readyz is ready when the log answers a query and can be written: a herd
// whose every write fails (a full disk) is not ready, and says why, until
// a write succeeds again.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if _, err := s.Log.Head(r.Context()); err != nil {
		http.Error(w, "event log unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	if err := s.Log.Unwritable(r.Context()); err != nil {
		http.Error(w, "event log unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

func metav1Status(code int32, reason metav1.StatusReason, msg string) metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: msg,
	}
}

// writeStatus answers with st, in the negotiated media type (JSON when
// negotiation failed, as kube-apiserver answers errors then), with its
// code: 200 for a success Status that names none.
func (s *Server) writeStatus(w http.ResponseWriter, st metav1.Status) {
	code := int(st.Code)
	if code == 0 {
		code = http.StatusOK
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	s.writeObject(w, code, &st)
}

package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/events"
)

// LeaderSource says which replica, of those sharing the log, runs a job
// that runs on one at a time (reconcilers.Manager for the reconcilers).
type LeaderSource interface {
	Leader(ctx context.Context) (leader events.Leader, ok bool, err error)
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}

// readyz is ready once herd has finished starting and when the log
// answers a query and can be written: a herd whose every write fails (a
// full disk) is not ready, and says why, until a write succeeds again,
// nor is a herd whose writes are behind (its write-queue check), until
// it has caught up. A replica that does not lead the reconcilers is
// ready all the same: it serves reads and writes. ?verbose says, as
// kube-apiserver's does, what was checked, and which replica leads the
// reconcilers.
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
	if s.Started != nil && !s.Started() {
		// The API listens before herd's last start steps (the
		// kubeconfig it writes, the demo fleet) have run: whoever waits
		// for /readyz finds them done.
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("[+]log ok\n[-]started failed: herd is still starting\nreadyz check failed\n"))
		return
	}
	queue, behind := s.writeQueueLine()
	if behind {
		// Not ready, and why, as kube-apiserver lists every check when
		// one fails: a herd whose writes are behind answers node
		// heartbeats first and refuses what can wait (priority.go).
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, "[+]log ok\n%s%s%sreadyz check failed\n", queue,
			leaderLine(r.Context(), "reconcilers", s.Reconcilers), leaderLine(r.Context(), "retention", s.Retention))
		return
	}
	if !r.URL.Query().Has("verbose") {
		_, _ = w.Write([]byte("ok"))
		return
	}
	_, _ = fmt.Fprintf(w, "[+]log ok\n%s%s%sreadyz check passed\n", queue,
		leaderLine(r.Context(), "reconcilers", s.Reconcilers), leaderLine(r.Context(), "retention", s.Retention))
}

// writeQueueLine is /readyz?verbose's line on herd's write path, and
// whether it is behind; nothing when herd does not say.
func (s *Server) writeQueueLine() (string, bool) {
	if s.WritePath == nil {
		return "", false
	}
	oldest, behind := s.WritePath.Behind()
	if behind {
		return fmt.Sprintf("[-]write-queue failed: herd's writes are behind: the oldest has waited %s for its commit; "+
			"requests other than node heartbeats are refused with 429 until it catches up\n", oldest.Round(time.Millisecond)), true
	}
	return fmt.Sprintf("[+]write-queue ok: the oldest write has waited %s\n", oldest.Round(time.Millisecond)), false
}

// leaderLine is /readyz?verbose's line on who leads job, or nothing when
// herd does not run it.
func leaderLine(ctx context.Context, job string, src LeaderSource) string {
	if src == nil {
		return ""
	}
	who, ok, err := src.Leader(ctx)
	switch {
	case err != nil:
		return fmt.Sprintf("[+]%s: who leads it is unknown: %v\n", job, err)
	case !ok:
		return fmt.Sprintf("[+]%s: no replica leads it now; one takes over within seconds\n", job)
	case who.Self:
		return fmt.Sprintf("[+]%s led by %s (this replica) since %s\n", job, who.Replica, who.Since.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("[+]%s led by %s since %s\n", job, who.Replica, who.Since.UTC().Format(time.RFC3339))
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

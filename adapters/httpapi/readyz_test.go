package httpapi

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// fakeLeaders answers Leader as told.
type fakeLeaders struct {
	who events.Leader
	ok  bool
	err error
}

var _ LeaderSource = fakeLeaders{}

func (f fakeLeaders) Leader(context.Context) (events.Leader, bool, error) { return f.who, f.ok, f.err }

// TestReadyzVerboseSaysWhoLeadsTheReconcilers: a replica is ready whether
// it leads the reconcilers (or the retention policy) or not; ?verbose
// says which replica does.
func TestReadyzVerboseSaysWhoLeadsTheReconcilers(t *testing.T) {
	since := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		leaders   LeaderSource
		retention LeaderSource
		want      string
	}{
		{name: "no reconcilers", want: "[+]log ok\nreadyz check passed"},
		{name: "this replica leads", leaders: fakeLeaders{who: events.Leader{Replica: "web-1:42", Since: since, Self: true}, ok: true},
			want: "[+]log ok\n[+]reconcilers led by web-1:42 (this replica) since 2026-11-26T12:00:00Z\nreadyz check passed"},
		{name: "another replica leads", leaders: fakeLeaders{who: events.Leader{Replica: "web-2:7", Since: since}, ok: true},
			want: "[+]log ok\n[+]reconcilers led by web-2:7 since 2026-11-26T12:00:00Z\nreadyz check passed"},
		{name: "none leads now", leaders: fakeLeaders{},
			want: "[+]log ok\n[+]reconcilers: no replica leads it now; one takes over within seconds\nreadyz check passed"},
		{name: "unknown", leaders: fakeLeaders{err: errors.New("connection refused")},
			want: "[+]log ok\n[+]reconcilers: who leads it is unknown: connection refused\nreadyz check passed"},
		{name: "the retention policy too", leaders: fakeLeaders{who: events.Leader{Replica: "web-2:7", Since: since}, ok: true},
			retention: fakeLeaders{who: events.Leader{Replica: "web-1:42", Since: since, Self: true}, ok: true},
			want:      "[+]log ok\n[+]reconcilers led by web-2:7 since 2026-11-26T12:00:00Z\n[+]retention led by web-1:42 (this replica) since 2026-11-26T12:00:00Z\nreadyz check passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newTestAPI(t, nil)
			api.Reconcilers, api.Retention = tt.leaders, tt.retention
			base := api.serve(t).URL
			got := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/readyz?verbose"})
			if diff := cmp.Diff(tt.want, string(got.body)); diff != "" {
				t.Errorf("/readyz?verbose (-want +got):\n%s", diff)
			}
			if got := mustSend(t, nil, base, http.StatusOK, req{method: "GET", path: "/readyz"}); string(got.body) != "ok" {
				t.Errorf("/readyz: %q, want ok", got.body)
			}
		})
	}
}

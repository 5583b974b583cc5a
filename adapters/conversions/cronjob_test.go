package conversions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// A CronJob's status comes back from the API as herd wrote it: its
// active Jobs, and its last schedule and success times in UTC, or none.
func TestCronJobStatusRoundTrips(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for _, st := range []domain.CronJobStatus{
		{},
		{Active: []domain.CronJobActiveJob{{Name: "backup-29410", UID: "u1"}}, LastScheduleTime: &at},
		{LastScheduleTime: &at, LastSuccessfulTime: ptrTo(at.Add(time.Minute))},
	} {
		c := domain.CronJob{}
		c.Namespace, c.Name, c.Status = "default", "backup", st
		api := CronJobToAPI(c)
		if st.LastScheduleTime == nil && api.Status.LastScheduleTime != nil {
			t.Errorf("no last schedule time rendered as %v", api.Status.LastScheduleTime)
		}
		got := CronJobStatusFromAPI(api.Status)
		if diff := cmp.Diff(st, got); diff != "" {
			t.Errorf("status after a round trip (-want +got):\n%s", diff)
		}
		if got.LastScheduleTime != nil && got.LastScheduleTime.Location() != time.UTC {
			t.Errorf("last schedule time in %v, want UTC", got.LastScheduleTime.Location())
		}
	}
}

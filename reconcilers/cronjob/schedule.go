package cronjob

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"

	"herd/domain"
)

// tooManyMissed is the count of missed runs past which Kubernetes'
// controller warns (more than 80 for an hourly CronJob over a weekend,
// less than "lots").
const tooManyMissed = 100

// parseSchedule reads c's schedule in its time zone, as Kubernetes'
// controller does: robfig/cron's standard parser, with the zone given as
// a TZ= prefix.
func parseSchedule(c domain.CronJob) (cron.Schedule, error) {
	s := c.Spec.Schedule
	if tz := c.Spec.TimeZone; tz != nil {
		s = "TZ=" + *tz + " " + s
	}
	sched, err := cron.ParseStandard(s)
	if err != nil {
		return nil, fmt.Errorf("unparseable schedule %q: %w", s, err)
	}
	return sched, nil
}

// mostRecent is the latest time of sched after the CronJob's last run
// (or its creation) and not after now, nil if none, and how many runs
// that skips, roughly, as Kubernetes' mostRecentScheduleTime counts them.
// With the starting deadline, no time older than it counts.
func mostRecent(c domain.CronJob, now time.Time, sched cron.Schedule, withDeadline bool) (earliest time.Time, recent *time.Time, missed int64, err error) {
	earliest = c.CreatedAt
	if t := c.Status.LastScheduleTime; t != nil {
		earliest = *t
	}
	if d := c.Spec.StartingDeadlineSeconds; withDeadline && d != nil {
		if deadline := now.Add(-time.Duration(*d) * time.Second); deadline.After(earliest) {
			earliest = deadline
		}
	}
	t1 := sched.Next(earliest)
	t2 := sched.Next(t1)
	if now.Before(t1) {
		return earliest, nil, 0, nil
	}
	if now.Before(t2) {
		return earliest, &t1, 1, nil
	}
	// A schedule such as "59 23 31 2 *" parses and never comes round.
	between := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if between < 1 {
		return earliest, nil, 0, fmt.Errorf("time difference between two schedules is less than 1 second")
	}
	missed = int64(now.Sub(t1).Seconds())/between + 1
	var last time.Time
	from := t1.Add(time.Duration((missed-2)*between) * time.Second)
	for t := sched.Next(from); !t.After(now); t = sched.Next(t) {
		last = t
	}
	if last.IsZero() {
		return earliest, nil, missed, nil
	}
	return earliest, &last, missed, nil
}

// nextAfter is how long until the CronJob's next run is due after now.
// Kubernetes' controller adds 100 ms for its informers; a timer of herd's
// clock (the wall clock's or a fake one) never fires before its time, so
// the run is due when it fires.
func nextAfter(c domain.CronJob, now time.Time, sched cron.Schedule) time.Duration {
	earliest, recent, _, err := mostRecent(c, now, sched, false)
	if err != nil {
		return 0
	}
	from := earliest
	if recent != nil {
		from = *recent
	}
	next := sched.Next(from)
	if next.IsZero() {
		return 0
	}
	return next.Sub(now)
}

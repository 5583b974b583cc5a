package domain

import "time"

// The command wrappers on a CronJob: a patch applied inside its unit of
// work (From), and a write conditional on a resourceVersion
// (Precondition).

func (f From[S, C]) decideCronJob(c CronJob, now time.Time) ([]Event, error) {
	return decideFrom(f, c, now, DecideCronJob)
}

func (c Precondition[C]) decideCronJob(cj CronJob, now time.Time) ([]Event, error) {
	return decideWrapped(cj, now, c.check, c.Command, DecideCronJob)
}

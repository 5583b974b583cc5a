package httpapi

import (
	"time"
)

// The times a query may name: those both engines store, as nanoseconds
// since 1970 in 64 bits (1677-09-21 to 2262-04-11), with whole years of
// margin so that a bound moved by a nanosecond still fits. The zero
// time (0001-01-01), which Go reads as "no bound", is outside it.
var (
	earliestTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	latestTime   = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// checkTimeRange refuses t, given as v for the parameter name, when it
// lies outside the times herd stores: 400 naming the parameter and the
// range, never a 500 from a time that overflowed in storage nor a bound
// silently read as none.
func checkTimeRange(name, v string, t time.Time) error {
	if t.Before(earliestTime) || !t.Before(latestTime) {
		return badRequest("%s %q is out of range: a time must be from %s to before %s",
			name, v, earliestTime.Format(time.RFC3339), latestTime.Format(time.RFC3339))
	}
	return nil
}

package whatif

import (
	"encoding/json"
	"time"
)

// Listed is how many of one node's NotReady times, or of one pod's
// evictions, an answer written as JSON lists before it counts the rest:
// a node of a day's window that would have gone NotReady after each of
// its reports has hundreds of times, and a thousand such nodes would make
// an answer of tens of megabytes. One more than Listed is listed whole:
// "and 1 more" says no less than the time itself.
const Listed = 5

// listed is the first Listed of xs, or all of them when at most one more.
func listed[T any](xs []T) []T {
	if len(xs) > Listed+1 {
		return xs[:Listed:Listed]
	}
	return xs
}

// lastOf is the last of xs, or the zero value.
func lastOf[T any](xs []T) T {
	var z T
	if len(xs) == 0 {
		return z
	}
	return xs[len(xs)-1]
}

// Shown is a list as an answer gives it: its first items (all of them
// when at most one more than Listed), how many it holds in all, and the
// last.
type Shown[T any] struct {
	First []T
	Count int
	Last  T
}

// More is how many items the answer counts but does not list.
func (s Shown[T]) More() int { return s.Count - len(s.First) }

// shown is xs as an answer gives it. count and last are what an answer
// read back from JSON says of a list it cut; a whole list needs neither.
func shown[T any](xs []T, count int, last T) Shown[T] {
	s := Shown[T]{First: listed(xs), Count: max(count, len(xs)), Last: last}
	if len(xs) == s.Count {
		s.Last = lastOf(xs)
	}
	return s
}

// Times are the node's NotReady times in herd and in the what-if, as the
// answer gives them.
func (d NodeDifference) Times() (actual, whatIf Shown[time.Time]) {
	return shown(d.Actual, d.ActualCount, d.ActualLast), shown(d.WhatIf, d.WhatIfCount, d.WhatIfLast)
}

// Evictions are the pod's evictions in herd and in the what-if, as the
// answer gives them.
func (d PodDifference) Evictions() (actual, whatIf Shown[Eviction]) {
	return shown(d.Actual, d.ActualCount, d.ActualLast), shown(d.WhatIf, d.WhatIfCount, d.WhatIfLast)
}

// MarshalJSON lists the first of the node's times and counts them all,
// with the last: what the CLI and the web view print.
func (d NodeDifference) MarshalJSON() ([]byte, error) {
	type plain NodeDifference // without this method
	p := plain(d)
	a, w := d.Times()
	p.Actual, p.ActualCount, p.ActualLast = a.First, a.Count, a.Last
	p.WhatIf, p.WhatIfCount, p.WhatIfLast = w.First, w.Count, w.Last
	return json.Marshal(p)
}

// MarshalJSON lists the first of the pod's evictions and counts them
// all, with the last.
func (d PodDifference) MarshalJSON() ([]byte, error) {
	type plain PodDifference // without this method
	p := plain(d)
	a, w := d.Evictions()
	p.Actual, p.ActualCount, p.ActualLast = a.First, a.Count, a.Last
	p.WhatIf, p.WhatIfCount, p.WhatIfLast = w.First, w.Count, w.Last
	return json.Marshal(p)
}

// MarshalJSON lists, per node and per pod, the first times and
// evictions, and counts every one of them.
func (o Outcome) MarshalJSON() ([]byte, error) {
	type plain Outcome // without this method
	p := plain(o)
	p.NotReady, p.NotReadyCount = listedEach(o.NotReady, o.NotReadyCount)
	p.Evicted, p.EvictedCount = listedEach(o.Evicted, o.EvictedCount)
	return json.Marshal(p)
}

// listedEach is m with each list cut as an answer lists it, and the
// count of each list (the larger of its length and counted's).
func listedEach[T any](m map[string][]T, counted map[string]int) (map[string][]T, map[string]int) {
	if m == nil {
		return nil, counted
	}
	out, counts := make(map[string][]T, len(m)), make(map[string]int, len(m))
	for k, xs := range m {
		out[k], counts[k] = listed(xs), max(len(xs), counted[k])
	}
	return out, counts
}

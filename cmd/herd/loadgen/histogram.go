package loadgen

import (
	"math/bits"
	"time"
)

// histogram counts latencies in log-linear buckets of microseconds, as
// HdrHistogram does: exact below 64 µs, then 64 buckets per power of two,
// so that a percentile is within 1/64 (1.6%) of the truth in a fixed
// few kilobytes however many requests a run sends. The maximum is kept
// exactly.
type histogram struct {
	counts [histBuckets]uint64
	total  uint64
	max    time.Duration
}

const (
	subBits  = 6
	subCount = 1 << subBits
	// histBuckets covers up to 2^40 µs (12 days): every request's
	// latency, whatever its timeout.
	histBuckets = subCount * (40 - subBits + 1)
)

// bucketOf is the bucket of a latency of us microseconds.
func bucketOf(us uint64) int {
	if us < subCount {
		return int(us)
	}
	shift := bits.Len64(us) - subBits - 1
	i := subCount*(shift+1) + int(us>>shift) - subCount
	return min(i, histBuckets-1)
}

// upperBound is the largest latency (µs) bucket i holds.
func upperBound(i int) uint64 {
	if i < subCount {
		return uint64(i)
	}
	shift := i/subCount - 1
	top := uint64(i%subCount + subCount)
	return (top+1)<<shift - 1
}

func (h *histogram) record(d time.Duration) {
	us := uint64(max(d.Microseconds(), 0))
	h.counts[bucketOf(us)]++
	h.total++
	h.max = max(h.max, d)
}

func (h *histogram) merge(o *histogram) {
	for i, n := range o.counts {
		h.counts[i] += n
	}
	h.total += o.total
	h.max = max(h.max, o.max)
}

// quantile is the latency below which a fraction q of the requests
// finished: the upper bound of its bucket, never more than the maximum.
func (h *histogram) quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(q*float64(h.total) + 0.5)
	rank = min(max(rank, 1), h.total)
	var seen uint64
	for i, n := range h.counts {
		seen += n
		if seen >= rank {
			return min(time.Duration(upperBound(i))*time.Microsecond, h.max)
		}
	}
	return h.max
}

package domain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LabelJobCompletionIndex is the annotation, and the label, that names an
// Indexed Job's pod's completion index, as Kubernetes' Job controller
// writes both.
const LabelJobCompletionIndex = "batch.kubernetes.io/job-completion-index"

// maxIndexedParallelism is the most pods an Indexed Job may run at once,
// as batch/v1 allows.
const maxIndexedParallelism = 100_000

// CompletionIndex is the completion index a pod of an Indexed Job holds
// in its annotation; false when it holds none, or none that reads as a
// non-negative decimal number.
func CompletionIndex(p Pod) (int32, bool) {
	v, ok := p.Annotations[LabelJobCompletionIndex]
	if !ok || v == "" || v[0] == '+' || v[0] == '-' {
		return 0, false
	}
	i, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(i), true
}

// Indexes is a set of completion indexes as sorted, disjoint, non-adjacent
// closed intervals: the form of a Job's status.completedIndexes
// ("1,3-5,7"), kept so for a Job of many completions.
type Indexes [][2]int32

// ParseIndexes reads a status.completedIndexes; an empty string is no
// index. What is not in that form is an error naming it.
func ParseIndexes(s string) (Indexes, error) {
	var out Indexes
	if s == "" {
		return out, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, ok := parseInterval(part)
		if !ok || hi < lo {
			return nil, fmt.Errorf("completed indexes %q: %q is not an index or an interval of them", s, part)
		}
		out = out.withInterval(lo, hi)
	}
	return out, nil
}

// parseInterval reads one part of a list of indexes: "3" or "5-7", each
// a decimal number from 0, without a sign.
func parseInterval(part string) (lo, hi int32, ok bool) {
	from, to, interval := strings.Cut(part, "-")
	if !interval {
		to = from
	}
	if strings.HasPrefix(from, "+") || strings.HasPrefix(to, "+") {
		return 0, 0, false
	}
	l, err1 := strconv.ParseInt(from, 10, 32)
	h, err2 := strconv.ParseInt(to, 10, 32)
	if err1 != nil || err2 != nil || l < 0 {
		return 0, 0, false
	}
	return int32(l), int32(h), true
}

// withInterval is the set and [lo, hi].
func (x Indexes) withInterval(lo, hi int32) Indexes {
	out := slices.Clone(x)
	out = append(out, [2]int32{lo, hi})
	slices.SortFunc(out, func(a, b [2]int32) int { return int(a[0]) - int(b[0]) })
	merged := out[:0]
	for _, iv := range out {
		if n := len(merged); n > 0 && iv[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], iv[1])
			continue
		}
		merged = append(merged, iv)
	}
	return merged
}

// With is the set and i.
func (x Indexes) With(i int32) Indexes { return x.withInterval(i, i) }

// Has reports whether i is in the set.
func (x Indexes) Has(i int32) bool {
	k, _ := slices.BinarySearchFunc(x, i, func(iv [2]int32, i int32) int {
		switch {
		case iv[1] < i:
			return -1
		case iv[0] > i:
			return 1
		}
		return 0
	})
	return k < len(x) && x[k][0] <= i && i <= x[k][1]
}

// From is the lowest index at or above i that the set does not hold.
func (x Indexes) From(i int32) int32 {
	for _, iv := range x {
		if iv[0] <= i && i <= iv[1] {
			return iv[1] + 1 // the next interval starts further on
		}
	}
	return i
}

// Len is how many indexes the set holds.
func (x Indexes) Len() int32 {
	var n int32
	for _, iv := range x {
		n += iv[1] - iv[0] + 1
	}
	return n
}

// String writes the set as status.completedIndexes does: "1,3-5,7".
func (x Indexes) String() string {
	var b strings.Builder
	for k, iv := range x {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(iv[0]), 10))
		if iv[1] > iv[0] {
			b.WriteByte('-')
			b.WriteString(strconv.FormatInt(int64(iv[1]), 10))
		}
	}
	return b.String()
}

// completedIndexesProblem says what is wrong with a completedIndexes
// written for a Job of completions, as batch/v1 refuses it: a part that is
// not an index or an interval of them, an index not below completions,
// or intervals not in increasing order. Nothing is wrong with "".
func completedIndexesProblem(s string, completions int32) string {
	if s == "" {
		return ""
	}
	last := int32(-1)
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, ok := parseInterval(part)
		switch {
		case !ok:
			return fmt.Sprintf("%q is not an index or an interval of them (\"3\", \"5-7\")", part)
		case lo <= last || hi < lo:
			return fmt.Sprintf("the indexes must be in increasing order: %q after %d", part, last)
		case hi >= completions:
			return fmt.Sprintf("index %d is not below the Job's %d completions", hi, completions)
		}
		last = hi
	}
	return ""
}

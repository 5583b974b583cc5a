package scheduler

import (
	"fmt"
	"strconv"
	"strings"
)

// ShapePoint is one point of RequestedToCapacityRatio's scoring
// function: at Utilization percent of a resource requested, a node
// scores Score, 0 to MaxShapeScore.
type ShapePoint struct {
	Utilization int64
	Score       int64
}

// Shape is RequestedToCapacityRatio's scoring function, its points in
// increasing utilization, as KubeSchedulerConfiguration's
// requestedToCapacityRatio.shape gives it.
type Shape []ShapePoint

// MaxShapeScore is the highest score a shape's point may give: the
// Kubernetes scheduler's MaxCustomPriorityScore. A node's score is the
// shape's times maxNodeScore / MaxShapeScore.
const MaxShapeScore = 10

// ParseShape reads a shape as --scheduler-scoring-shape takes it:
// UTILIZATION=SCORE points separated by commas, "0=0,100=10" packing
// pods onto the fullest node. Empty is no shape.
func ParseShape(s string) (Shape, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out Shape
	for part := range strings.SplitSeq(s, ",") {
		u, sc, ok := strings.Cut(strings.TrimSpace(part), "=")
		utilization, uerr := strconv.ParseInt(strings.TrimSpace(u), 10, 64)
		score, serr := strconv.ParseInt(strings.TrimSpace(sc), 10, 64)
		if !ok || uerr != nil || serr != nil {
			return nil, fmt.Errorf("--scheduler-scoring-shape %q: %q is not UTILIZATION=SCORE, two whole numbers (50=5)", s, part)
		}
		out = append(out, ShapePoint{Utilization: utilization, Score: score})
	}
	return out, out.Check()
}

// Set implements pflag.Value: --scheduler-scoring-shape.
func (s *Shape) Set(v string) error {
	shape, err := ParseShape(v)
	if err != nil {
		return err
	}
	*s = shape
	return nil
}

// Type implements pflag.Value.
func (*Shape) Type() string { return "shape" }

// String is the shape as --scheduler-scoring-shape takes it.
func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, p := range s {
		parts[i] = fmt.Sprintf("%d=%d", p.Utilization, p.Score)
	}
	return strings.Join(parts, ",")
}

// Check says what is wrong with a shape, as the Kubernetes scheduler
// checks one: utilizations from 0 to 100 in increasing order, scores
// from 0 to MaxShapeScore. No shape is not wrong here; the strategy that
// reads it needs one (Config.Validate).
func (s Shape) Check() error {
	for i, p := range s {
		switch {
		case p.Utilization < 0 || p.Utilization > 100:
			return fmt.Errorf("--scheduler-scoring-shape %s: utilization %d: want a percentage from 0 to 100", s, p.Utilization)
		case p.Score < 0 || p.Score > MaxShapeScore:
			return fmt.Errorf("--scheduler-scoring-shape %s: score %d: want 0 to %d", s, p.Score, MaxShapeScore)
		case i > 0 && p.Utilization <= s[i-1].Utilization:
			return fmt.Errorf("--scheduler-scoring-shape %s: utilization %d after %d: want the points in increasing utilization", s, p.Utilization, s[i-1].Utilization)
		}
	}
	return nil
}

// at is the shape's score, on maxNodeScore's scale, at utilization p
// percent: the first point's below it, the last's above, and on the
// straight line between the two points around p otherwise.
func (s Shape) at(p int64) int64 {
	scale := int64(maxNodeScore / MaxShapeScore)
	for i, pt := range s {
		if p <= pt.Utilization {
			if i == 0 {
				return pt.Score * scale
			}
			prev := s[i-1]
			return prev.Score*scale + (pt.Score-prev.Score)*scale*(p-prev.Utilization)/(pt.Utilization-prev.Utilization)
		}
	}
	return s[len(s)-1].Score * scale
}

// requestedToCapacityRatio is the NodeResourcesFit plugin's
// RequestedToCapacityRatio score of the node in r for a pod with request
// q under shape: the shape at each of CPU and memory's share requested
// once the pod is on the node (100 for one over-committed), averaged
// over those that score above 0 and rounded, 0 when none does. A
// resource the node does not offer is left out.
func (s Shape) requestedToCapacityRatio(r *room, q request) int64 {
	var sum, n int64
	for _, res := range [...]struct{ requested, capacity int64 }{
		{r.Used.ScoreCPU + q.ScoreCPU, r.CPU},
		{r.Used.ScoreMemory + q.ScoreMemory, r.Memory},
	} {
		if res.capacity == 0 {
			continue
		}
		utilization := int64(100)
		if res.requested < res.capacity {
			utilization = max(res.requested, 0) * 100 / res.capacity
		}
		if score := s.at(utilization); score > 0 {
			sum += score
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return (2*sum + n) / (2 * n) // sum / n, rounded half up
}

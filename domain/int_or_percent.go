package domain

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IntOrPercent is a number of pods either as such or as a percentage of
// a total, as Kubernetes' maxSurge, maxUnavailable and minAvailable say it
// ("2" or "25%"). Its JSON is the number or the "N%" string. Where one
// may be left out, it is held by pointer: nil is not given.
type IntOrPercent struct {
	Value   int32
	Percent bool
}

// Count returns n, or n% of total rounded up (roundUp) or down, as
// Kubernetes' intstr.GetScaledValueFromIntOrPercent does; nil counts 0.
func (v *IntOrPercent) Count(total int32, roundUp bool) int32 {
	switch {
	case v == nil:
		return 0
	case !v.Percent:
		return v.Value
	}
	f := float64(v.Value) * float64(total) / 100
	if roundUp {
		return int32(math.Ceil(f))
	}
	return int32(math.Floor(f))
}

// Of is the number v stands for out of total, a percentage rounded up, as
// a disruption budget reads it (GetScaledValueFromIntOrPercent(v, total,
// true)).
func (v IntOrPercent) Of(total int32) int32 { return v.Count(total, true) }

// String is "2" or "25%", as kubectl prints it.
func (v IntOrPercent) String() string {
	if v.Percent {
		return strconv.Itoa(int(v.Value)) + "%"
	}
	return strconv.Itoa(int(v.Value))
}

// Ints is n pods.
func Ints(n int32) *IntOrPercent { return &IntOrPercent{Value: n} }

// Percents is n percent.
func Percents(n int32) *IntOrPercent { return &IntOrPercent{Value: n, Percent: true} }

// ParseIntOrPercent reads "2" or "25%".
func ParseIntOrPercent(s string) (IntOrPercent, error) {
	digits, percent := strings.CutSuffix(s, "%")
	n, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		return IntOrPercent{}, fmt.Errorf("%q is neither a number nor a percentage", s)
	}
	return IntOrPercent{Value: int32(n), Percent: percent}, nil
}

// MarshalJSON is the number, or "N%".
func (v IntOrPercent) MarshalJSON() ([]byte, error) {
	if v.Percent {
		return json.Marshal(v.String())
	}
	return json.Marshal(v.Value)
}

// UnmarshalJSON reads a number or "N%".
func (v *IntOrPercent) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		p, err := ParseIntOrPercent(s)
		if err != nil {
			return err
		}
		*v = p
		return nil
	}
	var n int32
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*v = IntOrPercent{Value: n}
	return nil
}

// problems checks it as Kubernetes validates such a field: not negative,
// and a percentage at most 100.
func (v *IntOrPercent) problems(field string) []FieldError {
	switch {
	case v == nil:
		return nil
	case v.Value < 0:
		return []FieldError{{Field: field, Value: v.String(), Reason: "must be greater than or equal to 0"}}
	case v.Percent && v.Value > 100:
		return []FieldError{{Field: field, Value: v.String(), Reason: "must not be greater than 100%"}}
	}
	return nil
}

package conversions

import (
	"strings"
	"testing"
)

// derive copies the fields two structs have alike, pointers copied and
// not shared, leaves those named by hand and those one lacks, and
// refuses, as it is planned, a field it cannot copy.
func TestDeriveCopiesPlainFieldsAndRefusesOthers(t *testing.T) {
	type phase string
	type from struct {
		Name    string
		Count   int32
		Limit   *int64
		Ready   bool
		Phase   phase
		Skipped int32
		Extra   float64
	}
	type to struct {
		Name    string
		Count   int32
		Limit   *int64
		Ready   bool
		Phase   string
		Skipped int32
		Missing string
	}
	limit := int64(7)
	in := from{Name: "a", Count: 3, Limit: &limit, Ready: true, Phase: "Running", Skipped: 9, Extra: 1.5}
	got := derive[from, to]("Skipped")(in)
	if want := (to{Name: "a", Count: 3, Limit: got.Limit, Ready: true, Phase: "Running"}); got != want || got.Limit == nil || *got.Limit != 7 {
		t.Fatalf("got %+v, want %+v with limit 7", got, want)
	}
	if got.Limit == in.Limit {
		t.Error("the limit is shared with what it was converted from")
	}
	if z := derive[from, to]()(from{}); z != (to{}) {
		t.Errorf("zero converts to %+v", z)
	}

	type other struct{ Count int64 }
	defer func() {
		if r, _ := recover().(string); !strings.Contains(r, "Count") {
			t.Errorf("an int32 to an int64 planned without a refusal naming it: %q", r)
		}
	}()
	derive[from, other]()
}

package statefulset

import "testing"

// TestOrdinalIsReadOnlyFromANameOfTheSets: a pod's ordinal is read back
// from NAME-i, and from no other name: not a leading zero, a sign, a
// letter or another set's prefix.
func TestOrdinalIsReadOnlyFromANameOfTheSets(t *testing.T) {
	for name, want := range map[string]int{"web-0": 0, "web-12": 12, "web-01": -1, "web-": -1, "webx-1": -1, "web-a": -1, "web--1": -1, "web-+1": -1} {
		i, ok := Ordinal("web", name)
		if (want >= 0) != ok || (ok && i != want) {
			t.Errorf("%s: %d %v", name, i, ok)
		}
	}
}

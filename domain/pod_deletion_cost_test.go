package domain

import "testing"

// TestPodDeletionCostReadsAsKubeApiserverDoes: a 32-bit integer, no plus
// sign, no leading zeros; none is 0.
func TestPodDeletionCostReadsAsKubeApiserverDoes(t *testing.T) {
	for v, want := range map[string]int32{"0": 0, "100": 100, "-5": -5, "2147483647": 2147483647} {
		if got, err := PodDeletionCost(map[string]string{PodDeletionCostAnnotation: v}); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"", "+1", "007", "2147483648", "1.5", "ten"} {
		if _, err := PodDeletionCost(map[string]string{PodDeletionCostAnnotation: v}); err == nil {
			t.Errorf("%q read as a cost", v)
		}
	}
	if got, err := PodDeletionCost(nil); got != 0 || err != nil {
		t.Errorf("no annotation: %d, %v", got, err)
	}
}

package domain

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIndexesReadAndWrittenAsBatchV1Does(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"0", "0"},
		{"1,3-5,7", "1,3-5,7"},
		{"0,1,2", "0-2"},
		{"3-5,1", "1,3-5"},
		{"4-6,2-5", "2-6"},
		{"7,7", "7"},
	} {
		x, err := ParseIndexes(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got := x.String(); got != tc.want {
			t.Errorf("%q read and written: %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"a", "5-3", "-1", "1-", "1,,2", " 1"} {
		if _, err := ParseIndexes(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: error %v, want one naming it", bad, err)
		}
	}
	x, _ := ParseIndexes("1,3-5,7")
	for i, want := range map[int32]bool{0: false, 1: true, 2: false, 3: true, 5: true, 6: false, 7: true, 8: false} {
		if x.Has(i) != want {
			t.Errorf("1,3-5,7 has %d: %v, want %v", i, !want, want)
		}
	}
	for i, want := range map[int32]int32{0: 0, 1: 2, 3: 6, 4: 6, 7: 8, 9: 9} {
		if got := x.From(i); got != want {
			t.Errorf("1,3-5,7 from %d: %d, want %d", i, got, want)
		}
	}
	if x.Len() != 5 {
		t.Errorf("1,3-5,7 holds %d, want 5", x.Len())
	}
}

// TestIndexedJobCountsEachIndexOnce: an Indexed Job's succeeded pods
// complete their indexes; a second pod of an index completed, a pod of
// an index past the completions and a pod of none are counted (their
// finalizers released) without completing one, and Succeeded counts the
// indexes, as batch/v1's status does.
func TestIndexedJobCountsEachIndexOnce(t *testing.T) {
	spec := sampleJobSpec()
	spec.CompletionMode = JobIndexed
	evs, err := DecideJob(Job{}, CreateJob{Meta: ObjectMeta{Namespace: "default", Name: "pi", UID: "job-uid"}, Spec: spec}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	j := EvolveJob(Job{}, evs[0])
	count := func(c CountJobPods) JobPodsCounted {
		t.Helper()
		evs, err := DecideJob(j, c, at(2))
		if err != nil || len(evs) != 1 {
			t.Fatalf("count %+v: %v, %v", c, evs, err)
		}
		j = EvolveJob(j, evs[0])
		return evs[0].(JobPodsCounted)
	}
	got := count(CountJobPods{Succeeded: []string{"a", "b", "c", "d", "e"}, Failed: []string{"f"},
		Indexes: map[string]int32{"a": 0, "b": 1, "c": 0, "d": 9}})
	if diff := cmp.Diff([]int32{0, 1}, got.Indexes); diff != "" {
		t.Errorf("indexes completed (-want +got):\n%s", diff)
	}
	if j.Status.CompletedIndexes != "0-1" || j.Status.Succeeded != 2 || j.Status.Failed != 1 || len(j.Tracking.Counted) != 6 {
		t.Errorf("status %+v, counted %v: want indexes 0-1, 2 succeeded, 1 failed, 6 pods counted", j.Status, j.Tracking.Counted)
	}
	got = count(CountJobPods{Succeeded: []string{"g", "h"}, Indexes: map[string]int32{"g": 1, "h": 2}})
	if diff := cmp.Diff([]int32{2}, got.Indexes); diff != "" {
		t.Errorf("indexes completed the second time (-want +got):\n%s", diff)
	}
	if j.Status.CompletedIndexes != "0-2" || j.Status.Succeeded != 3 {
		t.Errorf("status %+v: want indexes 0-2, 3 succeeded", j.Status)
	}
}
